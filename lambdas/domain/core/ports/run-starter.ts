import type { RunReference } from "../run-reference";

/** The state machine's input. Small: cursors, never pages. */
export interface SyncExecutionInput extends RunReference {
  /** Set when an execution continues a run in a fresh execution (history bound). */
  readonly continuation?: unknown;
  /** The continuation's number (1, 2, ...): its execution is named `<run id>-c<generation>`. */
  readonly generation?: number;
}

/** Starts state machine executions (Step Functions in AWS, aws-local-stepfunctions locally). */
export interface RunStarter {
  /** Returns an opaque execution reference (the execution ARN in AWS). */
  start(input: SyncExecutionInput): Promise<string>;
  /** False once the execution has ended in any way (succeeded, failed, aborted, timed out) or is unknown. */
  isRunning(executionRef: string): Promise<boolean>;
  /**
   * Ends the execution (StopExecution in AWS; the local engine's abort).
   * Named `abort`, not `stop`: the local engine's `stop()` shuts the whole engine down.
   */
  abort(executionRef: string): Promise<void>;
}
