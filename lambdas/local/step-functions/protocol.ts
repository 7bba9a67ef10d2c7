import type { StateMachine } from "aws-local-stepfunctions";

/**
 * Messages between LocalStepFunctions (main thread) and engine-worker.ts (the
 * worker thread that runs aws-local-stepfunctions). Everything crosses by
 * structured clone, and every payload is plain JSON.
 */

/** One entry of the engine's event log (its `EventLog` union, which the package does not export by name). */
export type EngineEvent = ReturnType<StateMachine["run"]>["eventLogs"] extends AsyncGenerator<infer E> ? E : never;

export type FinalStatus = "SUCCEEDED" | "FAILED" | "ABORTED" | "TIMED_OUT";

export interface WorkerData {
  /** Substituted, already validated ASL definition. */
  readonly definition: object;
  /** Names of every Task state, nested Map/Parallel states included: each gets a local handler. */
  readonly taskStates: readonly string[];
  readonly timeScale: number;
  /** `$$.StateMachine.Id`. */
  readonly stateMachineArn: string;
}

/** The error a handler threw, reduced to what AWS Lambda reports of it. */
export interface HandlerError {
  readonly name: string;
  readonly message: string;
}

export type ToWorker =
  | { readonly type: "start"; readonly executionId: string; readonly input: unknown }
  | { readonly type: "abort"; readonly executionId: string }
  | { readonly type: "taskResult"; readonly callId: number; readonly ok: true; readonly output: unknown }
  | { readonly type: "taskResult"; readonly callId: number; readonly ok: false; readonly error: HandlerError };

export type FromWorker =
  | {
      readonly type: "task";
      readonly callId: number;
      readonly executionId: string;
      readonly stateName: string;
      readonly input: unknown;
    }
  | { readonly type: "event"; readonly executionId: string; readonly event: EngineEvent }
  | {
      readonly type: "end";
      readonly executionId: string;
      readonly status: FinalStatus;
      readonly output?: unknown;
      readonly error?: string;
      readonly cause?: string;
    };
