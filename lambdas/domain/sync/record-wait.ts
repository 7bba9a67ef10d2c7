import type { SourceThrottledError, SourceTransientError } from "../core/errors";
import { MAX_RETRIES, RETRY_BACKOFF_SECONDS } from "../core/limits";
import type { RunWait } from "../core/run-summary";
import { summaryRowsOf } from "./entity-steps";
import type { SyncDeps } from "./sync-deps";
import type { ExecutionRun, SyncCursor } from "./sync-state";
import { ruleOfError } from "./entity-failure";
import { sourceReachable } from "../source-contract/rules/failure-rules";

/**
 * The waits the state machine is about to make, written to the run summary by
 * the page task so the owner sees each one live. The state machine chooses
 * the wait (statemachine/sync.asl.json: ThrottlePlan for a 429, SyncPage's
 * Retry for SourceTransientError); these mirror it from the same constants.
 * Recording is best effort: a summary write that fails never fails the page.
 */

/** A 429: try `attempt` of the page comes after max(Retry-After, backoff step), unless the 5 retries are used up. */
export async function recordThrottleWait(
  deps: Pick<SyncDeps, "runs" | "clock" | "logger">,
  run: ExecutionRun,
  cursor: SyncCursor,
  error: SourceThrottledError,
): Promise<void> {
  const attempt = cursor.throttle_attempts + 1;
  if (attempt > MAX_RETRIES) return; // ThrottleExhausted: the entity fails, nothing is waited for
  const step = RETRY_BACKOFF_SECONDS[attempt - 1]!;
  await record(deps, run, cursor, {
    kind: "throttled",
    page: cursor.page,
    attempt,
    seconds: Math.max(error.retryAfterSeconds, step),
    retry_after_seconds: error.retryAfterSeconds,
    at: deps.clock.now().toISOString(),
    detail: error.detail,
    rule: null,
  });
}

/**
 * A 5xx, timeout or broken connection: SyncPage's Retry waits 1, 2, 4, 8, 16 s.
 * The task cannot see the Retry's count, so it counts the retries of this page
 * already recorded since the page was last entered (a 429 wait enters it anew).
 * Returns whether this was the page's last try and no try of it reached the
 * source at all (every recorded retry and this one `source.reachable`): the
 * source is down, and the entities after this one need not walk the ladder too.
 */
export async function recordRetryWait(
  deps: Pick<SyncDeps, "runs" | "clock" | "logger">,
  run: ExecutionRun,
  cursor: SyncCursor,
  error: SourceTransientError,
): Promise<{ readonly sourceDown: boolean }> {
  try {
    const [row] = summaryRowsOf(cursor.entity);
    const summary = await deps.runs.get(run.connection_id, run.run_id);
    const waits = summary?.entities.find((entity) => entity.entity === row)?.waits ?? [];
    let earlier = 0;
    for (let i = waits.length - 1; i >= 0 && waits[i]!.kind === "retry" && waits[i]!.page === cursor.page; i -= 1) earlier += 1;
    const attempt = earlier + 1;
    const rule = ruleOfError(error);
    if (attempt > MAX_RETRIES) {
      // The Retry is used up: the entity fails.
      const tries = waits.slice(waits.length - earlier);
      return { sourceDown: rule === sourceReachable.id && tries.every((wait) => wait.rule === sourceReachable.id) };
    }
    await record(deps, run, cursor, {
      kind: "retry",
      page: cursor.page,
      attempt,
      seconds: RETRY_BACKOFF_SECONDS[attempt - 1]!,
      retry_after_seconds: null,
      at: deps.clock.now().toISOString(),
      detail: error.detail,
      rule,
    });
  } catch (failure) {
    warn(deps, run, cursor, failure);
  }
  return { sourceDown: false };
}

async function record(deps: Pick<SyncDeps, "runs" | "logger">, run: ExecutionRun, cursor: SyncCursor, wait: RunWait): Promise<void> {
  const [row] = summaryRowsOf(cursor.entity);
  try {
    await deps.runs.entityWaited(run.connection_id, run.run_id, row!, wait);
  } catch (failure) {
    warn(deps, run, cursor, failure);
  }
}

function warn(deps: Pick<SyncDeps, "logger">, run: ExecutionRun, cursor: SyncCursor, failure: unknown): void {
  deps.logger.warn("the wait could not be recorded in the run summary; the sync goes on", {
    connection_id: run.connection_id,
    run_id: run.run_id,
    entity: cursor.entity,
    page: cursor.page,
    error: failure instanceof Error ? failure.name : "unknown",
  });
}

/**
 * Whether the page's last recorded wait is a retry of it: its task is then the
 * Retry block's re-run, not its first try. An early request that ended in a
 * 5xx or a time-out is the page's first try (fetch-ahead.ts): its task throws
 * that error once, and its re-runs request the page themselves.
 */
export async function retryRecorded(deps: Pick<SyncDeps, "runs">, run: ExecutionRun, cursor: SyncCursor): Promise<boolean> {
  const [row] = summaryRowsOf(cursor.entity);
  const summary = await deps.runs.get(run.connection_id, run.run_id);
  const last = summary?.entities.find((entity) => entity.entity === row)?.waits?.at(-1);
  return last?.kind === "retry" && last.page === cursor.page;
}
