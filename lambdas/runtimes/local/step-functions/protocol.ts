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
  | { readonly type: "load"; readonly data: WorkerData }
  | { readonly type: "start"; readonly executionId: string; readonly input: unknown }
  | { readonly type: "abort"; readonly executionId: string }
  | { readonly type: "taskResult"; readonly callId: number; readonly ok: true; readonly output: unknown }
  | { readonly type: "taskResult"; readonly callId: number; readonly ok: false; readonly error: HandlerError };

/**
 * A timer the engine set for an execution: `wait` for a Wait state or the pause
 * before a Retry (scaled by timeScale), `deadline` for a Task's or the
 * execution's TimeoutSeconds (never scaled).
 */
export interface EngineTimer {
  readonly kind: "wait" | "deadline";
  /** The delay the definition asked for, in ms. */
  readonly requestedMs: number;
  /** The delay the timer was actually set to (requestedMs x timeScale for a wait). */
  readonly scaledMs: number;
}

export type FromWorker =
  | { readonly type: "timer"; readonly executionId: string; readonly timer: EngineTimer }
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
