import type { Logger } from "../core/ports/logger";
import type { SyncExecutionInput } from "../core/ports/run-starter";
import { makeDispatchHandler } from "../sync/handlers/dispatch-handler";
import type { StartSyncDeps } from "../sync/sync-deps";
import { loadDispatchDefinition } from "../../statemachine/dispatch-definition";
import { LOCAL_PAGES_STATE_MACHINE_ARN, type LocalSyncEngine } from "./local-sync-engine";
import { LocalStepFunctions, type LocalExecutionResult, type TaskHandler } from "./step-functions/local-step-functions";

export const LOCAL_DISPATCH_STATE_MACHINE_ARN = "arn:aws:states:us-east-1:000000000000:stateMachine:crm-dispatch";

export interface LocalDispatchOptions {
  /** The sync's start deps (createLocalSync): their starter is the sync's local engine. */
  readonly startDeps: StartSyncDeps & { readonly starter: Pick<LocalSyncEngine, "start" | "result" | "runSegment"> };
  /** The cap on concurrent runs, as context maxConcurrentRuns sets it in AWS (the Map's children, less the live runs). */
  readonly maxConcurrentRuns: number;
  readonly timeScale: number;
  readonly logger: Logger;
  /** The tick's shuffle (tests pass a seeded one). */
  readonly random?: () => number;
}

/**
 * The schedule tick on one machine: statemachine/dispatch.asl.json on its own
 * aws-local-stepfunctions engine, with the Lambdas' handlers and, for the
 * Step Functions integrations, local twins on the sync's engines. Batches
 * past the Map's MaxConcurrencyPath (the children ListConnections answers)
 * wait in the Map (p-limit in the engine), so a large tick queues instead of
 * starting every run at once.
 */
export function createLocalDispatch(options: LocalDispatchOptions) {
  const syncEngine = options.startDeps.starter;
  const dispatcher = makeDispatchHandler(options.startDeps, options.random);
  const handlers: Record<string, TaskHandler> = {
    // One function behind every Lambda Task state, as one Lambda serves them all in AWS.
    ListConnections: dispatcher,
    ClaimRuns: dispatcher,
    SettleFirstSegments: dispatcher,
    ReleaseFailedStart: dispatcher,
    ReleaseRun: dispatcher,
    // states:startExecution.sync:2 of the Express page loop -> a segment on the sync's child engine, waited for.
    FirstSegment: (input, context) => syncEngine.runSegment(input, context.executionId),
    // states:startExecution.sync:2 -> the run's execution on the sync engine, under the name the definition gives
    // it, held until the run has ended: a ContinueAsNew hand-over is followed here, so the slot is held for the
    // whole run as in AWS.
    RunSync: async (input) => {
      const { Input, Name } = input as { Input: SyncExecutionInput; Name: string };
      let ref = await syncEngine.start(Input, { name: Name });
      for (;;) {
        const result = await syncEngine.result(ref);
        if (result.status !== "SUCCEEDED") throw executionEnded(result);
        const next = (result.output as { ExecutionArn?: unknown } | null)?.ExecutionArn;
        if (typeof next !== "string") return { ExecutionArn: ref, Status: result.status, Output: result.output };
        ref = next;
      }
    },
    // aws-sdk:sfn:describeExecution, for a continuation RunSync handed back (never, locally: RunSync follows them).
    DescribeContinuation: async (input) => {
      const { ExecutionArn } = input as { ExecutionArn: string };
      const result = await syncEngine.result(ExecutionArn);
      return { Status: result.status, Output: JSON.stringify(result.output ?? null) };
    },
  };
  const engine = new LocalStepFunctions({
    definition: loadDispatchDefinition(options.maxConcurrentRuns),
    handlers,
    substitutions: { SyncPagesStateMachineArn: LOCAL_PAGES_STATE_MACHINE_ARN },
    timeScale: options.timeScale,
    stateMachineArn: LOCAL_DISPATCH_STATE_MACHINE_ARN,
    // A tick's history holds every item's events (thousands): an hourly schedule must not keep days of them.
    finishedExecutionsKept: 1,
  });
  return {
    engine,
    /** One schedule tick: resolves when every run it started has ended. */
    async tick(): Promise<LocalExecutionResult> {
      const result = await engine.result(await engine.start({}));
      if (result.status !== "SUCCEEDED") {
        options.logger.error("scheduled dispatch failed", { status: result.status, error: result.error, cause: result.cause });
      }
      return result;
    },
    stop: () => engine.stop(),
  };
}
export type LocalDispatch = ReturnType<typeof createLocalDispatch>;

function executionEnded(result: LocalExecutionResult): Error {
  const error = new Error(`the run's execution ended ${result.status}: ${result.error ?? ""}`);
  error.name = "StepFunctions.ExecutionFailedException";
  return error;
}
