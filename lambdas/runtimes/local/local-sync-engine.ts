import type { RunStarter, SyncExecutionInput } from "../../domain/core/ports/run-starter";
import {
  LocalStepFunctions,
  type SequencedTimer,
  type LocalExecutionInfo,
  type LocalExecutionResult,
  type LocalHistoryEvent,
  type TaskContext,
  type TaskHandler,
} from "./step-functions/local-step-functions";
import { createServiceIntegrations, START_EXECUTION, START_EXECUTION_SYNC, type ServiceIntegrations } from "./step-functions/service-integrations";
import { loadSyncDefinition, loadSyncPagesDefinition } from "../../../statemachine/sync-definition";

export const LOCAL_STATE_MACHINE_ARN = "arn:aws:states:us-east-1:000000000000:stateMachine:crm-sync";
export const LOCAL_PAGES_STATE_MACHINE_ARN = "arn:aws:states:us-east-1:000000000000:stateMachine:crm-sync-pages";

export interface LocalSyncEngineOptions {
  /** The child's Lambda Task states (BeginRun, SyncPage, EntityFailed, StopRun, FinishRun), by name. */
  readonly handlers: object;
  readonly timeScale: number;
  /** Wraps the parent's ContinueAsNew (crash gates; tests that hold a run between two executions). */
  readonly continueAsNew?: (proceed: TaskHandler) => TaskHandler;
}

/**
 * Both sync state machines on aws-local-stepfunctions: the Standard parent
 * (statemachine/sync.asl.json) and the Express page loop
 * (statemachine/sync-pages.asl.json), each on its own engine.
 *
 * aws-local-stepfunctions runs no Step Functions integration, so the parent's
 * RunPages (`startExecution.sync:2`) and ContinueAsNew (`startExecution`) run
 * the stand-ins of step-functions/service-integrations.ts, over both state
 * machines by their local ARNs; `integrations` is that same set, for the
 * schedule tick's engine (local-dispatch.ts).
 *
 * As a RunStarter it starts parents only; the inspection methods (result,
 * events, timers, settled, abort) take a reference of either engine, and
 * list() shows the parents first, then the children.
 */
export class LocalSyncEngine implements RunStarter {
  readonly parent: LocalStepFunctions;
  readonly child: LocalStepFunctions;
  /** The Step Functions integrations on both state machines: what a Task of any local engine calls them through. */
  readonly integrations: ServiceIntegrations;
  /** Execution -> the execution whose `.sync:2` Task started it (a segment's parent, or the schedule tick's). */
  private readonly parents = new Map<string, string>();

  constructor(options: LocalSyncEngineOptions) {
    this.integrations = createServiceIntegrations({
      machines: { [LOCAL_STATE_MACHINE_ARN]: this, [LOCAL_PAGES_STATE_MACHINE_ARN]: { start: (input, start) => this.child.start(input, start), result: (ref) => this.child.result(ref), knows: (ref) => this.child.knows(ref), isRunning: (ref) => this.child.isRunning(ref) } },
      onStarted: (ref, startedBy) => this.parents.set(ref, startedBy),
    });
    this.child = new LocalStepFunctions({
      definition: loadSyncPagesDefinition(),
      handlers: options.handlers as Readonly<Record<string, TaskHandler>>,
      timeScale: options.timeScale,
      stateMachineArn: LOCAL_PAGES_STATE_MACHINE_ARN,
    });
    this.parent = new LocalStepFunctions({
      definition: loadSyncDefinition(),
      integrations: this.integrations,
      ...(options.continueAsNew === undefined ? {} : { handlers: { ContinueAsNew: options.continueAsNew(this.integrations[START_EXECUTION]!) } }),
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

  knows(executionRef: string): boolean {
    return this.parent.knows(executionRef) || this.child.knows(executionRef);
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

  private engineOf(executionRef: string): LocalStepFunctions {
    return this.child.knows(executionRef) ? this.child : this.parent;
  }
}
