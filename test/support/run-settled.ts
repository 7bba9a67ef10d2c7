import type { RunSummary } from "../../lambdas/domain/core/run-summary";
import type { LocalSyncEngine } from "../../lambdas/runtimes/local/local-sync-engine";

/**
 * The run id a local execution belongs to: a Standard execution carries it in
 * its input (continuations included); an Express page-loop segment in the
 * state its parent handed over (`state.run_id` for the first, `state.run.run_id` after).
 */
const runIdOf = (input: unknown): unknown => {
  const parent = input as { run_id?: unknown; state?: { run_id?: unknown; run?: { run_id?: unknown } } } | null;
  return parent?.run_id ?? parent?.state?.run?.run_id ?? parent?.state?.run_id;
};

/**
 * The run's summary once every execution of the run has ended: waits on the
 * engine's own result promises (a gate), never on the clock. A continuation
 * (ContinueAsNew) is started before its parent ends, so the loop sees it.
 * A summary still `running` after that (an execution aborted under it) is
 * returned as is, for the test to judge.
 */
export async function runSettled(
  engine: LocalSyncEngine,
  runs: { get(connectionId: string, runId: string): Promise<RunSummary | null> },
  connectionId: string,
  runId: string,
): Promise<RunSummary> {
  for (;;) {
    const running = engine.list().filter((execution) => execution.status === "RUNNING" && runIdOf(execution.input) === runId);
    if (running.length === 0) break;
    await Promise.all(running.map((execution) => engine.result(execution.executionId)));
  }
  const summary = await runs.get(connectionId, runId);
  if (summary === null) throw new Error(`run ${runId} of ${connectionId} not found`);
  return summary;
}

/**
 * The waits the state machine asked for during a run, in seconds and in order
 * (Wait states and the pauses before Retry attempts, across its executions),
 * as the engine reported them: what the definition decided, not wall time.
 */
export function runWaitSeconds(engine: LocalSyncEngine, runId: string): number[] {
  return engine
    .list()
    .filter((execution) => runIdOf(execution.input) === runId)
    .flatMap((execution) => engine.timers(execution.executionId))
    .filter((timer) => timer.kind === "wait")
    // In the order they were set: the 429 waits are the Standard parent's, the 5xx retries the Express segments'.
    .sort((a, b) => a.seq - b.seq)
    .map((timer) => timer.requestedMs / 1000);
}
