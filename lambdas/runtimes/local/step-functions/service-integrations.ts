import type { LocalExecutionResult } from "./execution-history";
import type { TaskContext, TaskHandler } from "./task-call";

/**
 * The Step Functions integrations the definitions call (statemachine/*.asl.json),
 * each written once, for every local engine: a Task state whose Resource is one
 * of these runs the stand-in below instead of a local handler named after the
 * state. The state machine a call names (StateMachineArn) is looked up among the
 * local ones by ARN.
 */

/** What an integration needs of a local state machine. */
export interface LocalStateMachine {
  start(input: unknown, options?: { readonly name?: string }): Promise<string>;
  result(executionRef: string): Promise<LocalExecutionResult>;
  /** Whether this state machine started the execution (and still remembers it). */
  knows(executionRef: string): boolean;
  isRunning(executionRef: string): Promise<boolean>;
}

export const START_EXECUTION = "arn:aws:states:::states:startExecution";
export const START_EXECUTION_SYNC = "arn:aws:states:::states:startExecution.sync:2";
export const DESCRIBE_EXECUTION = "arn:aws:states:::aws-sdk:sfn:describeExecution";

/** The integrations by the Resource that names them. */
export type ServiceIntegrations = Readonly<Record<string, TaskHandler>>;

export interface ServiceIntegrationsOptions {
  /** The local state machines by ARN (the values the definitions' `${...StateMachineArn}` are given, and `$$.StateMachine.Id`). */
  readonly machines: Readonly<Record<string, LocalStateMachine>>;
  /** Told of every execution a `.sync:2` Task started, with the execution that started it. */
  readonly onStarted?: (executionRef: string, startedBy: string) => void;
}

/**
 * - `startExecution`: starts the execution (named when `Name` is given, so a
 *   retried start is idempotent) and answers `{ ExecutionArn }`.
 * - `startExecution.sync:2`: starts it and waits for its end; answers its
 *   Output parsed, or fails as `States.TaskFailed` with its error and cause.
 *   One local difference: an execution that ended by continuing in a fresh one
 *   (its Output names that execution, ContinueAsNew) is followed to the end of
 *   the chain, so the caller's describeExecution polling (the dispatch's
 *   WaitForContinuation, 60 s a round) is not needed locally; the caller holds
 *   its slot for the whole run, as in AWS.
 * - `aws-sdk:sfn:describeExecution`: `{ Status, Output }` (Output a JSON string) of a known execution.
 */
export function createServiceIntegrations(options: ServiceIntegrationsOptions): ServiceIntegrations {
  const machineOf = (arn: unknown): LocalStateMachine => {
    const machine = typeof arn === "string" && Object.hasOwn(options.machines, arn) ? options.machines[arn] : undefined;
    if (machine === undefined) throw taskFailed(`no local state machine ${String(arn)}`);
    return machine;
  };
  const start = (input: unknown): Promise<{ machine: LocalStateMachine; ref: string }> => {
    const { StateMachineArn, Input, Name } = input as { StateMachineArn?: unknown; Input?: unknown; Name?: unknown };
    const machine = machineOf(StateMachineArn);
    return machine.start(Input, typeof Name === "string" ? { name: Name } : {}).then((ref) => ({ machine, ref }));
  };
  return {
    [START_EXECUTION]: async (input) => ({ ExecutionArn: (await start(input)).ref }),
    [START_EXECUTION_SYNC]: async (input: unknown, context: TaskContext) => {
      const started = await start(input);
      let ref = started.ref;
      options.onStarted?.(ref, context.executionId);
      for (;;) {
        const result = await started.machine.result(ref);
        if (result.status !== "SUCCEEDED") {
          throw taskFailed(JSON.stringify({ ExecutionArn: ref, Status: result.status, Error: result.error, Cause: result.cause }));
        }
        const next = (result.output as { ExecutionArn?: unknown } | null)?.ExecutionArn;
        if (typeof next !== "string" || !started.machine.knows(next)) return { ExecutionArn: ref, Status: result.status, Output: result.output };
        ref = next;
      }
    },
    [DESCRIBE_EXECUTION]: async (input) => {
      const { ExecutionArn } = input as { ExecutionArn: string };
      // A local execution reference names no state machine: the one that started it answers.
      const machine = Object.values(options.machines).find((each) => each.knows(ExecutionArn));
      if (machine === undefined) throw taskFailed(`unknown execution ${ExecutionArn}`);
      if (await machine.isRunning(ExecutionArn)) return { Status: "RUNNING" };
      const result = await machine.result(ExecutionArn);
      return { Status: result.status, Output: JSON.stringify(result.output ?? null) };
    },
  };
}

function taskFailed(cause: string): Error {
  const error = new Error(cause);
  error.name = "States.TaskFailed";
  return error;
}
