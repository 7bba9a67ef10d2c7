import type { RunSummary } from "../../lambdas/core/ports";
import type { LocalStepFunctions } from "../../lambdas/local/step-functions/local-step-functions";

/** The run ids a local execution belongs to (every execution of a run, continuations included, carries it). */
const runIdOf = (input: unknown): unknown => (input as { run_id?: unknown } | null)?.run_id;

/**
 * The run's summary once every execution of the run has ended: waits on the
 * engine's own result promises (a gate), never on the clock. A continuation
 * (ContinueAsNew) is started before its parent ends, so the loop sees it.
 * A summary still `running` after that (an execution aborted under it) is
 * returned as is, for the test to judge.
 */
export async function runSettled(
  engine: LocalStepFunctions,
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
export function runWaitSeconds(engine: LocalStepFunctions, runId: string): number[] {
  return engine
    .list()
    .filter((execution) => runIdOf(execution.input) === runId)
    .flatMap((execution) => engine.timers(execution.executionId))
    .filter((timer) => timer.kind === "wait")
    .map((timer) => timer.requestedMs / 1000);
}
