import type { Logger } from "../../domain/core/ports/logger";
import { makeDispatchHandler } from "../../handlers/sync/dispatch-handler";
import type { StartSyncDeps } from "../../domain/sync/sync-deps";
import { loadDispatchDefinition } from "../../../statemachine/dispatch-definition";
import { LOCAL_PAGES_STATE_MACHINE_ARN, LOCAL_STATE_MACHINE_ARN } from "./local-sync-engine";
import { LocalStepFunctions, type LocalExecutionResult } from "./step-functions/local-step-functions";
import type { ServiceIntegrations } from "./step-functions/service-integrations";

export const LOCAL_DISPATCH_STATE_MACHINE_ARN = "arn:aws:states:us-east-1:000000000000:stateMachine:crm-dispatch";

export interface LocalDispatchOptions {
  readonly startDeps: StartSyncDeps;
  /** The Step Functions integrations on the sync's state machines (LocalSyncEngine.integrations): FirstSegment, RunSync and DescribeContinuation call them. */
  readonly integrations: ServiceIntegrations;
  /** The cap on concurrent runs, as context maxConcurrentRuns sets it in AWS (the Map's children, less the live runs). */
  readonly maxConcurrentRuns: number;
  readonly timeScale: number;
  readonly logger: Logger;
  /** The tick's shuffle (tests pass a seeded one). */
  readonly random?: () => number;
}

/** The schedule tick on one machine. */
export interface LocalDispatch {
  readonly engine: LocalStepFunctions;
  /** One schedule tick: resolves when every run it started has ended. */
  tick(): Promise<LocalExecutionResult>;
  stop(): Promise<void>;
}

/**
 * The schedule tick on one machine: statemachine/dispatch.asl.json on its own
 * aws-local-stepfunctions engine, the Dispatcher's handler behind its Lambda
 * Task states, and the sync engine's stand-ins for the Step Functions
 * integrations. Batches past the Map's MaxConcurrencyPath (the children
 * ListConnections answers) wait in the Map (p-limit in the engine), so a large
 * tick queues instead of starting every run at once.
 */
export function createLocalDispatch(options: LocalDispatchOptions): LocalDispatch {
  const dispatcher = makeDispatchHandler(options.startDeps, options.random);
  // One function behind every Lambda Task state, as one Lambda serves them all in AWS.
  const handlers = Object.fromEntries(DISPATCHER_TASKS.map((state) => [state, dispatcher]));
  const engine = new LocalStepFunctions({
    definition: loadDispatchDefinition(options.maxConcurrentRuns),
    handlers,
    integrations: options.integrations,
    substitutions: { SyncPagesStateMachineArn: LOCAL_PAGES_STATE_MACHINE_ARN, SyncStateMachineArn: LOCAL_STATE_MACHINE_ARN },
    timeScale: options.timeScale,
    stateMachineArn: LOCAL_DISPATCH_STATE_MACHINE_ARN,
    // A tick's history holds every item's events (thousands): an hourly schedule must not keep days of them.
    finishedExecutionsKept: 1,
  });
  return {
    engine,
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
/** The dispatch definition's Lambda Task states: each a task of the Dispatcher function. */
const DISPATCHER_TASKS = ["ListConnections", "ClaimRuns", "SettleFirstSegments", "ReleaseFailedStart", "ReleaseRun"] as const;
