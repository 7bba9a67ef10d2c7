import type { RunStarter, SyncExecutionInput } from "../core/ports/run-starter";
import {
  LocalStepFunctions,
  type SequencedTimer,
  type LocalExecutionInfo,
  type LocalExecutionResult,
  type LocalHistoryEvent,
  type TaskContext,
  type TaskHandler,
} from "./step-functions/local-step-functions";
import { loadSyncDefinition, loadSyncPagesDefinition } from "../../statemachine/sync-definition";

export const LOCAL_STATE_MACHINE_ARN = "arn:aws:states:us-east-1:000000000000:stateMachine:crm-sync";
export const LOCAL_PAGES_STATE_MACHINE_ARN = "arn:aws:states:us-east-1:000000000000:stateMachine:crm-sync-pages";

export interface LocalSyncEngineOptions {
  /** The child's Lambda Task states (BeginRun, SyncPage, EntityFailed, StopRun, FinishRun), by name. */
  readonly handlers: object;
  readonly timeScale: number;
  /** Wraps the parent's ContinueAsNew (crash gates; tests that hold a run between two executions). */
  readonly continueAsNew?: (proceed: TaskHandler) => TaskHandler;
}

/** What `startExecution.sync:2` answers when the child execution has succeeded: its Output parsed. */
interface SyncExecutionResult {
  readonly ExecutionArn: string;
  readonly Status: "SUCCEEDED";
  readonly Output: unknown;
}

/**
 * Both sync state machines on aws-local-stepfunctions: the Standard parent
 * (statemachine/sync.asl.json) and the Express page loop
 * (statemachine/sync-pages.asl.json), each on its own engine.
 *
 * aws-local-stepfunctions has no `.sync` integration, so the parent's RunPages
 * Task gets a local handler (its task override) that starts the child on the
 * second engine and waits for it, answering as Step Functions does: the
 * child's Output on success, `States.TaskFailed` (its error and cause as the
 * Cause) when it failed or timed out. ContinueAsNew starts the parent again
 * under the name the definition gives it, so a retried start is idempotent.
 *
 * As a RunStarter it starts parents only; the inspection methods (result,
 * events, timers, settled, abort) take a reference of either engine, and
 * list() shows the parents first, then the children.
 */
export class LocalSyncEngine implements RunStarter {
  readonly parent: LocalStepFunctions;
  readonly child: LocalStepFunctions;
  /** Child execution -> the parent execution whose RunPages started it. */
  private readonly parents = new Map<string, string>();

  constructor(options: LocalSyncEngineOptions) {
    this.child = new LocalStepFunctions({
      definition: loadSyncPagesDefinition(),
      handlers: options.handlers as Readonly<Record<string, TaskHandler>>,
      timeScale: options.timeScale,
      stateMachineArn: LOCAL_PAGES_STATE_MACHINE_ARN,
    });
    this.parent = new LocalStepFunctions({
      definition: loadSyncDefinition(),
      handlers: {
        RunPages: (input, context) => this.runPages(input, context),
        ContinueAsNew: (options.continueAsNew ?? ((proceed) => proceed))(async (input) => {
          const { Input, Name } = input as { Input: SyncExecutionInput; Name: string };
          return { ExecutionArn: await this.start(Input, { name: Name }) };
        }),
      },
      substitutions: { SyncPagesStateMachineArn: LOCAL_PAGES_STATE_MACHINE_ARN },
      timeScale: options.timeScale,
      stateMachineArn: LOCAL_STATE_MACHINE_ARN,
    });
  }

  get timeScale(): number {
    return this.parent.timeScale;
  }

  /** Starts the run's Standard execution (named when continuing: `<run id>-c<n>`). */
  start(input: unknown, options: { readonly name?: string } = {}): Promise<string> {
    return this.parent.start(input, options);
  }

  isRunning(executionRef: string): Promise<boolean> {
    return this.engineOf(executionRef).isRunning(executionRef);
  }

  /**
   * Aborts an execution. A parent's running segment is aborted with it: locally
   * an abort stands for the death of the run (as when the local runtime is
   * killed, every execution with it). On AWS, StopExecution cannot stop an
   * Express execution, so a segment may outlive its parent by at most one
   * segment; `abortParentOnly` shows that case, and the fence is what makes it
   * harmless (docs/run-safety.md).
   */
  async abort(executionRef: string): Promise<void> {
    if (this.child.knows(executionRef)) return this.child.abort(executionRef);
    await this.parent.abort(executionRef);
    const children = this.child.list().filter((execution) => this.parents.get(execution.executionId) === executionRef);
    await Promise.all(children.map((execution) => this.child.abort(execution.executionId)));
  }

  /** StopExecution as on AWS: the parent ends; its Express segment, if one is running, goes on. */
  abortParentOnly(executionRef: string): Promise<void> {
    return this.parent.abort(executionRef);
  }

  result(executionRef: string): Promise<LocalExecutionResult> {
    return this.engineOf(executionRef).result(executionRef);
  }

  events(executionRef: string): readonly LocalHistoryEvent[] {
    return this.engineOf(executionRef).events(executionRef);
  }

  timers(executionRef: string): readonly SequencedTimer[] {
    return this.engineOf(executionRef).timers(executionRef);
  }

  settled(executionRef: string): Promise<void> {
    return this.engineOf(executionRef).settled(executionRef);
  }

  /** The parent execution that started a child (undefined for a parent). */
  parentOf(executionRef: string): string | undefined {
    return this.parents.get(executionRef);
  }

  list(): readonly LocalExecutionInfo[] {
    return [...this.parent.list(), ...this.child.list()];
  }

  async stop(): Promise<void> {
    await this.parent.stop();
    await this.child.stop();
  }

  /**
   * `startExecution.sync:2` of the page loop for a caller outside this engine
   * (the schedule tick's FirstSegment): start a segment, wait for its end,
   * answer as Step Functions does.
   */
  runSegment(input: unknown, startedBy: string): Promise<SyncExecutionResult> {
    return this.runPages(input, { executionId: startedBy, stateName: "FirstSegment" });
  }

  /** The `.sync:2` integration: start the child, wait for its end, answer with its Output or fail as the Task. */
  private async runPages(input: unknown, context: TaskContext): Promise<SyncExecutionResult> {
    const { StateMachineArn, Input } = input as { StateMachineArn: string; Input: unknown };
    if (StateMachineArn !== LOCAL_PAGES_STATE_MACHINE_ARN) throw taskFailed(`RunPages names an unknown state machine: ${StateMachineArn}`);
    const ref = await this.child.start(Input);
    this.parents.set(ref, context.executionId);
    const result = await this.child.result(ref);
    if (result.status === "SUCCEEDED") return { ExecutionArn: ref, Status: "SUCCEEDED", Output: result.output };
    throw taskFailed(JSON.stringify({ ExecutionArn: ref, Status: result.status, Error: result.error, Cause: result.cause }));
  }

  private engineOf(executionRef: string): LocalStepFunctions {
    return this.child.knows(executionRef) ? this.child : this.parent;
  }
}

function taskFailed(cause: string): Error {
  const error = new Error(cause);
  error.name = "States.TaskFailed";
  return error;
}
