import type { RunSummary } from "../core/run-summary";
import { checkRunTransition } from "../core/run-lifecycle";
import { endUnfinishedEntities } from "../sync/fail-unfinished-entities";
import type { OnboardingDeps } from "./onboarding-deps";
import { ConflictError, NotFoundError } from "./onboarding-errors";
import { getRun } from "./run-operations";

/**
 * Cancels a running sync: the run and its entities not finished end
 * `cancelled`, which is no failure (the connection's health, the alerts and
 * the metrics leave it out). Order matters (docs/run-safety.md): entities not
 * finished are cancelled first (a no-op once the run has finished),
 * then finish() closes the run and releases the lock, which fences the
 * execution off (its in-flight page writes nothing), and only then is the
 * execution aborted. If the run finished first, its finish wins and the
 * summary says so. A failed abort is logged: the fence already stops writes.
 */
export async function cancelRun(deps: OnboardingDeps, account: string, id: string, runId: string): Promise<RunSummary> {
  const run = await getRun(deps, account, id, runId);
  if (checkRunTransition(run.status, "cancelled") !== null) throw new ConflictError(`run ${runId} has already finished (${run.status})`);
  const lock = await deps.runs.lock(id);
  await endUnfinishedEntities(deps.runs, run, { status: "cancelled" });
  await deps.runs.finish(id, runId, { status: "cancelled", finishedAt: deps.clock.now().toISOString() });
  if (lock !== null && lock.runId === runId && lock.executionRef !== null) {
    try {
      await deps.starter.abort(lock.executionRef);
    } catch (error) {
      deps.logger.warn("cancelled run's execution could not be aborted; its lock is released, so it writes nothing", {
        connection_id: id,
        run_id: runId,
        error: error instanceof Error ? error.name : String(error),
      });
    }
  }
  deps.logger.info("run cancelled by the owner", { business_account_id: account, connection_id: id, run_id: runId });
  const after = await deps.runs.get(id, runId);
  if (after === null) throw new NotFoundError(`no run ${runId}`);
  return after;
}
