import * as v from "valibot";
import { endUnfinishedEntities } from "./fail-unfinished-entities";
import { serviceFailure } from "./entity-failure";
import { claimRun } from "./start-sync";
import type { SyncExecutionInput } from "../core/ports/run-starter";
import { runLiveness } from "../core/run-lock";
import { RunReferenceSchema, type RunReference } from "../core/run-reference";
import type { StartSyncDeps } from "./sync-deps";
import { auditDue, auditEveryDays } from "../core/audit-schedule";
import { pausedStaleNotices } from "./stale-notice";

/** Connections per ListConnections page, at most; fewer when their ids are long (DISPATCH_PAGE_MAX_BYTES). */
export const DISPATCH_PAGE_SIZE = 1000;

/**
 * Step Functions' payload limit for a state's input or output, in UTF-8 bytes
 * (https://docs.aws.amazon.com/step-functions/latest/dg/service-quotas.html).
 */
export const STATE_PAYLOAD_MAX_BYTES = 256 * 1024;

/**
 * A ListConnections answer stays within this: ids the API allows (255
 * characters, each up to 6 bytes once JSON-escaped) would put 1,000 of them
 * at about 1.6 MB; the rest of the state (cursor, cap, counts) needs far less
 * than the quarter left.
 */
export const DISPATCH_PAGE_MAX_BYTES = 192 * 1024;

/** One connection to run, as the schedule tick's Map carries it: its audit schedule too, so the claim can tell an audit is due. */
export const DispatchItemSchema = v.object({
  ...v.pick(RunReferenceSchema, ["business_account_id", "connection_id"]).entries,
  /** Days between scheduled audits (core/audit-schedule.ts); absent when audits are off. */
  audit_every_days: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1))),
  /** When the connection was created: its first audit is due audit_every_days later. */
  created_at: v.optional(v.string()),
});
export type DispatchItem = v.InferOutput<typeof DispatchItemSchema>;

/** Connections one Map child runs (statemachine/dispatch-definition.ts DISPATCH_BATCH_SIZE). */
export interface DispatchBatch {
  readonly items: readonly DispatchItem[];
}

export interface DispatchPage {
  readonly batches: readonly DispatchBatch[];
  readonly cursor: string | null;
  /** Connections of this page left out because their owner paused the schedule (a manual sync still runs them). */
  readonly paused: number;
}

/**
 * One page of the schedule tick's connections, paused ones left out, in a
 * random order (the Map starts runs in list order, so a fixed order would
 * always queue the same connections last), cut into batches of batchSize.
 */
export async function listDispatchPage(
  deps: Pick<StartSyncDeps, "connections" | "logger">,
  cursor: string | null,
  random: () => number = Math.random,
  limit: number = DISPATCH_PAGE_SIZE,
  batchSize = 1,
): Promise<DispatchPage> {
  return batchDispatchPage(deps, await deps.connections.listAllPage({ limit, cursor }), random, batchSize);
}

function batchDispatchPage(
  deps: Pick<StartSyncDeps, "logger">,
  page: Awaited<ReturnType<StartSyncDeps["connections"]["listAllPage"]>>,
  random: () => number,
  batchSize: number,
): DispatchPage {
  const items = page.connections
    .filter((connection) => connection.paused !== true)
    .map((connection): DispatchItem => {
      const every = auditEveryDays(connection.audit_schedule);
      return {
        business_account_id: connection.business_account_id,
        connection_id: connection.id,
        ...(every === null ? {} : { audit_every_days: every, created_at: connection.created_at }),
      };
    });
  shuffle(items, random);
  const paused = page.connections.length - items.length;
  const batches: DispatchBatch[] = [];
  for (let at = 0; at < items.length; at += batchSize) batches.push({ items: items.slice(at, at + batchSize) });
  deps.logger.info("dispatch page listed", { connections: items.length, batches: batches.length, paused, last_page: page.cursor === null });
  return { batches, cursor: page.cursor, paused };
}

/** The cap on concurrent runs as ListConnections gets it (statemachine/dispatch-definition.ts writes both in). */
export interface DispatchCap {
  /** Context maxConcurrentRuns. */
  readonly maxRuns: number;
  /** The most Map children at once: maxRuns / batch size, rounded down. */
  readonly maxChildren: number;
}

/** A page of the tick with its Map's MaxConcurrency (the Map reads `children` through MaxConcurrencyPath). */
export interface PlannedDispatchPage extends DispatchPage {
  /** Runs live when the page was listed (any tick's, or started by the API). */
  readonly live_runs: number;
  /** Map children at once for this page: the cap's room left by the live runs, in batches. */
  readonly children: number;
}

/**
 * Children a page of the tick may run at once: the room the live runs leave
 * under the cap, in whole batches, at most maxChildren; never fewer than one,
 * so a tick always makes progress (that one child may go past the cap by at
 * most one batch).
 */
export function childrenUnderCap(cap: DispatchCap, batchSize: number, liveRuns: number): number {
  return Math.min(cap.maxChildren, Math.max(1, Math.floor((cap.maxRuns - liveRuns) / batchSize)));
}

/**
 * Runs live now among these connections: their run lock is held and the
 * liveness rule (core/run-lock.ts runLiveness) does not call it dead; a run
 * only its execution can judge counts as live (only a claim asks the
 * execution). Counts a dead run's lock until a claim takes it over, and a
 * damaged lock as live: fewer children, never more.
 */
export async function countLiveRuns(deps: Pick<StartSyncDeps, "runs" | "clock" | "logger">, connectionIds: readonly string[]): Promise<number> {
  const now = deps.clock.now();
  const { locks, damaged } = await deps.runs.heldLocks(connectionIds);
  if (damaged > 0) deps.logger.error("damaged run locks counted as live runs", { damaged });
  return locks.filter((lock) => runLiveness(lock, now) !== "dead").length + damaged;
}

/**
 * One page of the tick (listDispatchPage) and how many children its Map may
 * run at once, from the runs live among the page's own connections (paused
 * ones included: the API runs them) when it is listed. A tick of n
 * connections reads each connection and each run lock once: O(n) items in
 * O(n / 100) calls (DynamoDB bills every item a BatchGetItem reads), never the
 * whole fleet again at every page. The runs of this tick's earlier pages have
 * all ended (the Map waits for its children); an earlier tick's runs and the
 * API's count on the page that lists their connections (docs/fleet-scale.md).
 */
export async function planDispatchPage(
  deps: Pick<StartSyncDeps, "connections" | "runs" | "clock" | "logger" | "staleCheck">,
  cursor: string | null,
  cap: DispatchCap,
  random: () => number = Math.random,
  limit: number = DISPATCH_PAGE_SIZE,
  batchSize = 1,
): Promise<PlannedDispatchPage> {
  const { listed, page } = await listWithinBytes(deps, cursor, random, limit, batchSize);
  // The paused ones get no run from this tick, so no run's end checks their freshness: the tick does.
  if (deps.staleCheck !== undefined) await pausedStaleNotices({ ...deps.staleCheck, clock: deps.clock, logger: deps.logger }, listed.connections);
  const liveRuns = await countLiveRuns(deps, listed.connections.map((connection) => connection.id));
  const children = childrenUnderCap(cap, batchSize, liveRuns);
  deps.logger.info("dispatch page planned", { live_runs: liveRuns, children, max_children: cap.maxChildren });
  return { ...page, live_runs: liveRuns, children };
}

/**
 * A page whose answer fits DISPATCH_PAGE_MAX_BYTES: when the connections
 * listed are too long, the same page is listed again from the same cursor
 * with a limit scaled down to fit (rare: only ids far longer than ours).
 */
async function listWithinBytes(
  deps: Pick<StartSyncDeps, "connections" | "logger">,
  cursor: string | null,
  random: () => number,
  limit: number,
  batchSize: number,
) {
  for (let tryLimit = limit; ; ) {
    const listed = await deps.connections.listAllPage({ limit: tryLimit, cursor });
    const page = batchDispatchPage(deps, listed, random, batchSize);
    const bytes = Buffer.byteLength(JSON.stringify(page), "utf8");
    if (bytes <= DISPATCH_PAGE_MAX_BYTES || tryLimit === 1) return { listed, page };
    const smaller = Math.max(1, Math.min(tryLimit - 1, Math.floor((tryLimit * DISPATCH_PAGE_MAX_BYTES) / bytes)));
    deps.logger.info("dispatch page over its byte budget; listed again with a smaller limit", { bytes, limit: tryLimit, next_limit: smaller });
    tryLimit = smaller;
  }
}

export type DispatchClaim =
  | { readonly claimed: true; readonly run: RunReference }
  | { readonly claimed: false; readonly running_run_id: string };

/**
 * The Map's first step for one connection: its run lock, or the run already
 * in progress (skipped). The run is an audit when one is due (its schedule's
 * days since the last audit started), else a sync: the tick starts either
 * through the same state machine.
 */
export async function claimDispatchedRun(deps: StartSyncDeps, item: DispatchItem): Promise<DispatchClaim> {
  const mode = (await scheduledAuditDue(deps, item)) ? "audit" : "sync";
  const claim = await claimRun(deps, { business_account_id: item.business_account_id, id: item.connection_id }, { mode });
  if (!claim.claimed) {
    deps.logger.info("dispatch skipped: a run is in progress", { connection_id: item.connection_id, run_id: claim.runId });
    return { claimed: false, running_run_id: claim.runId };
  }
  return { claimed: true, run: claim.input };
}

/**
 * A Map child's first step: its batch's run locks, one claim each; the runs
 * claimed (connections with a live run left out). A claim that fails leaves
 * its connection to the next tick instead of failing the call: a retried call
 * would find the locks it had already taken and leave those runs out, held
 * until their lease runs out.
 */
export async function claimDispatchedRuns(deps: StartSyncDeps, items: readonly DispatchItem[]): Promise<{ readonly runs: readonly SyncExecutionInput[] }> {
  const runs: SyncExecutionInput[] = [];
  for (const item of items) {
    try {
      const claim = await claimDispatchedRun(deps, item);
      if (claim.claimed) runs.push(claim.run);
    } catch (error) {
      deps.logger.error("dispatch claim failed; the connection waits for the next tick", {
        connection_id: item.connection_id,
        error: error instanceof Error ? error.name : String(error),
      });
    }
  }
  return { runs };
}

/**
 * A dispatched run that cannot go on (its first segment failed for good, or
 * its execution could not be started): its entities not finished fail and the
 * run finishes failed, which releases its lock now instead of when the lease
 * runs out. A no-op once the run has finished (finish and the entities' failure are),
 * so a run that ended on its own keeps its own outcome.
 */
export async function releaseDispatchedRun(deps: StartSyncDeps, run: RunReference, caughtError?: string): Promise<void> {
  // Once per run, after the Task's retries: the DispatchStartFailures metric filter counts this line (lib/alarms.ts).
  if (caughtError !== undefined) deps.logger.error(DISPATCH_START_FAILED_MESSAGE, { connection_id: run.connection_id, run_id: run.run_id, error: caughtError });
  const summary = await deps.runs.get(run.connection_id, run.run_id);
  if (summary === null || summary.status !== "running") return;
  await endUnfinishedEntities(deps.runs, summary, { status: "failed", failure: serviceFailure(DISPATCHED_RUN_NOT_STARTED) });
  await deps.runs.finish(run.connection_id, run.run_id, { status: "failed", finishedAt: deps.clock.now().toISOString() });
  deps.logger.error("dispatched run could not go on; its lock is released", { connection_id: run.connection_id, run_id: run.run_id });
}

/**
 * The dispatcher's log line for a run whose start (or its first segment) the tick gave up on, with the caught error's
 * name; a run whose own execution failed carries States.TaskFailed, which the alarm leaves out.
 */
export const DISPATCH_START_FAILED_MESSAGE = "dispatch gave up on a run's start";

/** What a segment ended on when the run goes on (statemachine/sync-pages.asl.json Route: SegmentEnd). */
export const UNFINISHED_OUTCOMES: ReadonlySet<string> = new Set(["next_segment", "throttled", "continue_as_new"]);

/** Any first segment's output: each ends with the outcome in `step` (a run's state, FinishRun's result, a failed begin). */
export const SegmentOutputSchema = v.looseObject({ step: v.looseObject({ outcome: v.string() }) });
export type SegmentOutput = v.InferOutput<typeof SegmentOutputSchema>;

/** A segment whose BeginRun failed outputs its own input: the run it was given is under `state`. */
const BeginFailedSchema = v.looseObject({ state: RunReferenceSchema });

/**
 * After a batch's first segments: the runs they did not end go on (the Map
 * child hands them to the sync state machine); a run whose BeginRun failed
 * never reached FinishRun and no execution holds it, so it is released here,
 * not when its lease runs out.
 */
export async function settleFirstSegments(deps: StartSyncDeps, segments: readonly SegmentOutput[]): Promise<{ readonly handovers: readonly SegmentOutput[] }> {
  for (const segment of segments) {
    if (segment.step.outcome !== "begin_failed") continue;
    const { state } = v.parse(BeginFailedSchema, segment);
    await releaseDispatchedRun(deps, state);
  }
  return { handovers: handOversOf(segments) };
}

/** The segments whose run goes on: they ended on an outcome of UNFINISHED_OUTCOMES. */
export function handOversOf(segments: readonly SegmentOutput[]): readonly SegmentOutput[] {
  return segments.filter((segment) => UNFINISHED_OUTCOMES.has(segment.step.outcome));
}

/** The error each unfinished entity of a released dispatched run gets. */
export const DISPATCHED_RUN_NOT_STARTED = "the run could not be started or resumed by the schedule tick";

async function scheduledAuditDue(deps: Pick<StartSyncDeps, "runs" | "clock">, item: DispatchItem): Promise<boolean> {
  if (item.audit_every_days === undefined || item.created_at === undefined) return false;
  const now = deps.clock.now();
  // Before reading the last audit: a connection younger than the interval has none due.
  if (!auditDue(item.audit_every_days, null, item.created_at, now)) return false;
  const [last] = await deps.runs.listAudits(item.connection_id, { limit: 1 });
  return auditDue(item.audit_every_days, last?.started_at ?? null, item.created_at, now);
}

/** Fisher-Yates, in place. */
function shuffle<T>(items: T[], random: () => number): void {
  for (let i = items.length - 1; i > 0; i -= 1) {
    const j = Math.floor(random() * (i + 1));
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
}
