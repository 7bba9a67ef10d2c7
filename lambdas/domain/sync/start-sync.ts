import { SyncQueueUnavailableError } from "../core/errors";
import { runLiveness, type RunLock } from "../core/run-lock";
import type { SyncExecutionInput } from "../core/ports/run-starter";
import { leaseUntil } from "./entity-steps";
import { endUnfinishedEntities } from "./fail-unfinished-entities";
import { serviceFailure } from "./entity-failure";
import { newAuditId, newRunId } from "./run-id";
import type { RunMode } from "../core/run-mode";
import type { StartSyncDeps } from "./sync-deps";

export interface StartSyncResult {
  /** The new run, or the run already in progress. */
  readonly runId: string;
  /** False when a run was already in progress and nothing new started. */
  readonly started: boolean;
}

/**
 * Starts a sync unless one is in progress for the connection. A lock whose run
 * died (its execution ended; or, with no execution known, its lease passed) is
 * taken over, and the dead run is reported failed, so a dead run never blocks
 * its connection. A dead run that still makes a request can write nothing:
 * every page checks the lock (see commitPage).
 */
export interface StartSyncOptions {
  /**
   * The caller knows no execution of an earlier process can still be alive
   * (the local runtime starting again: its engine's executions died with the
   * last process). A lock with no execution known is then dead at once, not
   * only when its lease has passed: a run killed while handing over to a fresh
   * execution resumes on the restart instead of 15 minutes later.
   */
  readonly earlierExecutionsGone?: boolean;
  /** `audit`: the run is an audit (core/run-mode.ts): same lock, same state machines. Default `sync`. */
  readonly mode?: RunMode;
}

export async function startSync(
  deps: StartSyncDeps,
  connection: { readonly business_account_id: string; readonly id: string },
  options: StartSyncOptions = {},
): Promise<StartSyncResult> {
  const claim = await claimRun(deps, connection, options);
  if (!claim.claimed) return { runId: claim.runId, started: false };
  const run = claim.input;

  try {
    const executionRef = await deps.starter.start(run);
    await deps.runs.setExecution(connection.id, run.run_id, executionRef);
  } catch (error) {
    await deps.runs.finish(connection.id, run.run_id, { status: "failed", finishedAt: deps.clock.now().toISOString() });
    deps.logger.error("sync could not be started", { connection_id: connection.id, run_id: run.run_id, error: String(error) });
    throw new SyncQueueUnavailableError("the sync could not be queued; try again shortly", { cause: error });
  }
  deps.logger.info(options.mode === "audit" ? "audit started" : "sync started", { connection_id: connection.id, run_id: run.run_id });
  return { runId: run.run_id, started: true };
}

export type ClaimResult =
  | { readonly claimed: true; readonly runId: string; readonly input: SyncExecutionInput }
  | { readonly claimed: false; readonly runId: string };

/**
 * Takes the connection's run lock for a new run without starting it: the
 * caller starts the execution (startSync here; the schedule tick's Map in
 * statemachine/dispatch.asl.json). False, with the live run's id, when a run
 * is in progress; a dead run's lock is taken over (see startSync).
 */
export async function claimRun(
  deps: StartSyncDeps,
  connection: { readonly business_account_id: string; readonly id: string },
  options: StartSyncOptions = {},
): Promise<ClaimResult> {
  const now = deps.clock.now();
  const runId = options.mode === "audit" ? newAuditId(now) : newRunId(now);
  const run = { connectionId: connection.id, runId, startedAt: now.toISOString(), leaseUntil: leaseUntil(now) };

  let begun = await deps.runs.begin(run);
  if (!begun.started) {
    const holder = begun.holder;
    if (!(await isDead(deps, holder, now, options))) return { claimed: false, runId: holder.runId };
    begun = await deps.runs.begin(run, { replacing: holder.runId });
    if (!begun.started) return { claimed: false, runId: begun.holder.runId };
    await reportDead(deps, connection.id, holder.runId, now);
  }
  return {
    claimed: true,
    runId: run.runId,
    input: { business_account_id: connection.business_account_id, connection_id: connection.id, run_id: run.runId },
  };
}

/** The liveness rule (core/run-lock.ts runLiveness); an execution recorded on the lock is asked whether it still runs. */
async function isDead(deps: StartSyncDeps, holder: RunLock, now: Date, options: StartSyncOptions): Promise<boolean> {
  const liveness = runLiveness(holder, now, options);
  if (liveness === "ask_execution" && holder.executionRef !== null) return !(await deps.starter.isRunning(holder.executionRef));
  return liveness === "dead";
}

/** The error each unfinished entity of a dead run gets when a new run takes its lock over. */
const DEAD_RUN_TAKEN_OVER = "the run stopped without finishing (its execution ended, or it never started in time)";

async function reportDead(deps: StartSyncDeps, connectionId: string, runId: string, now: Date): Promise<void> {
  await endUnfinishedEntities(deps.runs, await deps.runs.get(connectionId, runId), { status: "failed", failure: serviceFailure(DEAD_RUN_TAKEN_OVER) });
  await deps.runs.finish(connectionId, runId, { status: "failed", finishedAt: now.toISOString() });
  deps.logger.warn("dead run taken over", { connection_id: connectionId, run_id: runId });
}
