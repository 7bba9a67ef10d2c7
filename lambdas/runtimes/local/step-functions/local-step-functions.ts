import { randomUUID } from "node:crypto";
import type { Worker } from "node:worker_threads";
import type { RunStarter } from "../../../domain/core/ports/run-starter";
import { acquireEngineThread, releaseEngineThread } from "./engine-thread";
import {
  ExecutionHistory,
  type ExecutionRecord,
  type LocalExecutionInfo,
  type LocalExecutionResult,
  type LocalHistoryEvent,
  type SequencedTimer,
} from "./execution-history";
import { prepareDefinition, taskStates } from "./prepare-definition";
import type { FromWorker, ToWorker, WorkerData } from "./protocol";
import type { ServiceIntegrations } from "./service-integrations";
import { callTask, namedError, type TaskHandler } from "./task-call";
import { validateDefinition } from "./validate-definition";

export type { EngineTimer } from "./protocol";
export type { TaskContext, TaskHandler } from "./task-call";
export {
  FINISHED_EXECUTIONS_KEPT,
  FINISHED_HISTORY_EVENTS_KEPT,
  type ExecutionStatus,
  type LocalExecutionInfo,
  type LocalExecutionResult,
  type LocalHistoryEvent,
  type SequencedTimer,
} from "./execution-history";

/**
 * Runs an ASL definition (the same file Step Functions runs in AWS) locally on
 * aws-local-stepfunctions, with local functions in place of the Task states'
 * Lambda functions and the Step Functions integrations' stand-ins
 * (service-integrations.ts) for the Tasks that call those.
 *
 * The engine runs in a worker thread (engine-worker.ts) whose engine waits —
 * Wait states and Retry backoff — are multiplied by `timeScale`; the handlers
 * run here, on the calling thread, in real time. A handler may call `start()`
 * itself (a ContinueAsNew task starts the next execution of the run).
 */

export interface LocalStepFunctionsOptions {
  /** The parsed ASL definition. Not modified. */
  readonly definition: object;
  /**
   * By Task state name: every Lambda Task state (nested Map/Parallel ones included) needs one. A Task that calls
   * a Step Functions integration runs the one of `integrations` unless a handler by its name is given here.
   */
  readonly handlers?: Readonly<Record<string, TaskHandler>>;
  /** The stand-ins of the Step Functions integrations, by Resource (createServiceIntegrations). */
  readonly integrations?: ServiceIntegrations;
  /** Multiplies every wait the engine makes (Wait states, Retry backoff). Default 1; must be >= 0. */
  readonly timeScale?: number;
  /** Validate the substituted definition with asl-validator when constructed (default true). */
  readonly validate?: boolean;
  /** DefinitionSubstitutions: each `${key}` in the definition's strings is replaced by its value. */
  readonly substitutions?: Readonly<Record<string, string>>;
  /** `$$.StateMachine.Id` (default `arn:aws:states:us-east-1:000000000000:stateMachine:local`). */
  readonly stateMachineArn?: string;
  /** Finished executions kept readable (default FINISHED_EXECUTIONS_KEPT); a schedule tick's history is large, so it keeps few. */
  readonly finishedExecutionsKept?: number;
  /** Events (plus timers) the histories of finished executions keep together; default FINISHED_HISTORY_EVENTS_KEPT. */
  readonly finishedHistoryEventsKept?: number;
}

const DEFAULT_STATE_MACHINE_ARN = "arn:aws:states:us-east-1:000000000000:stateMachine:local";
/** How long stop() waits for aborted executions to report before terminating the worker. */
const STOP_GRACE_MS = 2_000;

export class LocalStepFunctions implements RunStarter {
  readonly timeScale: number;
  /** The definition as the engine runs it (substituted, placeholder ARNs replaced). */
  readonly definition: object;
  /** Every Task state's function, by state name. */
  private readonly handlers: Readonly<Record<string, TaskHandler>>;
  private readonly workerData: WorkerData;
  private readonly executions: ExecutionHistory;
  /** Every name used, for as long as the engine lives (AWS keeps a Standard execution's name for 90 days). */
  private readonly named = new Set<string>();
  private worker: Worker | undefined;
  private running = 0;
  private stopping: Promise<void> | undefined;

  constructor(options: LocalStepFunctionsOptions) {
    const timeScale = options.timeScale ?? 1;
    if (!Number.isFinite(timeScale) || timeScale < 0) {
      throw new RangeError(`timeScale must be a finite number >= 0, got ${String(options.timeScale)}`);
    }
    this.timeScale = timeScale;
    this.executions = new ExecutionHistory(options.finishedExecutionsKept, options.finishedHistoryEventsKept);

    const definition = prepareDefinition(options.definition, options.substitutions ?? {});
    const tasks = taskStates(definition);
    const handlers: Record<string, TaskHandler> = {};
    for (const [name, resource] of tasks) {
      const handler = options.handlers?.[name] ?? options.integrations?.[resource];
      if (handler !== undefined) handlers[name] = handler;
    }
    this.handlers = handlers;
    const missing = [...tasks.keys()].filter((name) => typeof this.handlers[name] !== "function");
    if (missing.length > 0) throw new Error(`No local handler for Task state(s): ${missing.join(", ")}`);
    if (options.validate ?? true) {
      const { valid, errors } = validateDefinition(definition);
      if (!valid) throw new Error(`Invalid state machine definition:\n${errors.join("\n")}`);
    }
    this.definition = definition;
    this.workerData = {
      definition,
      taskStates: [...tasks.keys()],
      timeScale,
      stateMachineArn: options.stateMachineArn ?? DEFAULT_STATE_MACHINE_ARN,
    };
  }

  /**
   * Starts an execution; resolves to its reference at once (the run goes on in
   * the background): `local:<uuid>`, or `local:<name>` for a named one. A name
   * behaves as in a Standard workflow: starting it again with the same input
   * while it runs returns the same reference (nothing new starts); once it has
   * ended, or with another input, it fails with
   * `StepFunctions.ExecutionAlreadyExistsException`.
   */
  async start(input: unknown, options: { readonly name?: string } = {}): Promise<string> {
    if (this.stopping) throw new Error("LocalStepFunctions has been stopped");
    // Executions take JSON (StartExecution's default input is {}).
    const json: unknown = input === undefined ? {} : JSON.parse(JSON.stringify(input));
    const id = options.name === undefined ? `local:${randomUUID()}` : `local:${options.name}`;
    const existing = this.executions.get(id);
    if (existing !== undefined || this.named.has(id)) {
      if (existing?.status === "RUNNING" && JSON.stringify(existing.input) === JSON.stringify(json)) return id;
      throw namedError("StepFunctions.ExecutionAlreadyExistsException", `Execution Already Exists: '${id}'`);
    }
    if (options.name !== undefined) this.named.add(id);
    this.executions.add(id, json);
    const worker = this.ensureWorker();
    if (this.running++ === 0) worker.ref();
    this.send(worker, { type: "start", executionId: id, input: json });
    return id;
  }

  /** Whether this engine started the execution (and still remembers it). */
  knows(executionRef: string): boolean {
    return this.executions.get(executionRef) !== undefined;
  }

  async isRunning(executionRef: string): Promise<boolean> {
    return this.executions.get(executionRef)?.status === "RUNNING";
  }

  /** Resolves when the execution has ended. Rejects for an unknown reference. */
  async result(executionRef: string): Promise<LocalExecutionResult> {
    return this.executions.record(executionRef).done;
  }

  /** A snapshot of the execution's event log so far (complete once result() has resolved). */
  events(executionRef: string): readonly LocalHistoryEvent[] {
    return [...this.executions.withHistoryOf(executionRef).events];
  }

  /**
   * The timers the engine set for the execution so far, in order (complete once
   * result() has resolved): every Wait state and pause before a Retry (`wait`,
   * with the delay the definition asked for and the one scaled by timeScale),
   * and every TimeoutSeconds deadline (`deadline`, never scaled). Lets a test
   * assert the waits a run asked for without measuring time.
   */
  timers(executionRef: string): readonly SequencedTimer[] {
    return [...this.executions.withHistoryOf(executionRef).timers];
  }

  /**
   * Resolves once the execution has ended and no handler call of it is still
   * running: after an abort, the handler that was running finishes (its result
   * is dropped) and only then does this resolve.
   */
  async settled(executionRef: string): Promise<void> {
    const record = this.executions.record(executionRef);
    await record.done;
    if (record.tasksRunning === 0) return;
    await new Promise<void>((resolve) => record.onIdle.push(resolve));
  }

  /** Every execution started so far, in start order. */
  list(): readonly LocalExecutionInfo[] {
    return this.executions.list();
  }

  /**
   * Aborts a running execution and resolves once it has ended (ABORTED, unless
   * it ended otherwise first). The engine stops before the next state; a
   * handler already running finishes, and its result is dropped.
   */
  async abort(executionRef: string): Promise<void> {
    const record = this.executions.record(executionRef);
    if (record.status !== "RUNNING") return;
    if (this.worker) this.send(this.worker, { type: "abort", executionId: executionRef });
    await record.done;
  }

  /** Aborts every running execution and terminates the worker. Idempotent; start() fails afterwards. */
  stop(): Promise<void> {
    this.stopping ??= this.shutdown();
    return this.stopping;
  }

  private async shutdown(): Promise<void> {
    const running = [...this.executions.all()].filter((record) => record.status === "RUNNING");
    const worker = this.worker;
    if (worker) for (const record of running) this.send(worker, { type: "abort", executionId: record.id });
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.all(running.map((record) => record.done)),
      new Promise((resolve) => (timer = setTimeout(resolve, STOP_GRACE_MS))),
    ]);
    clearTimeout(timer);
    // Handed on only when every execution ended by itself and no handler call is left; else it may still talk.
    const clean = running.every((record) => record.status !== "RUNNING" && record.tasksRunning === 0);
    for (const record of running) this.end(record, { status: "ABORTED" });
    this.worker = undefined;
    if (worker === undefined) return;
    if (clean && [...this.executions.all()].every((record) => record.tasksRunning === 0)) await releaseEngineThread(worker);
    else await worker.terminate();
  }

  private end(record: ExecutionRecord, result: LocalExecutionResult): void {
    if (this.executions.end(record, result) && --this.running === 0) this.worker?.unref();
  }

  private send(worker: Worker, message: ToWorker): void {
    try {
      worker.postMessage(message);
    } catch {
      // The worker is gone; its exit handler fails the executions.
    }
  }

  private ensureWorker(): Worker {
    if (this.worker) return this.worker;
    const worker = acquireEngineThread();
    worker.unref();
    worker.on("message", (message: FromWorker) => this.onMessage(worker, message));
    const failAll = (error: string, cause: string) => {
      if (this.worker !== worker) return;
      this.worker = undefined;
      for (const record of this.executions.all()) this.end(record, { status: "FAILED", error, cause });
      this.running = 0;
    };
    worker.on("error", (error) => failAll("LocalStepFunctions.WorkerError", error.stack ?? error.message));
    worker.on("exit", (code) => failAll("LocalStepFunctions.WorkerExited", `The engine worker exited with code ${code}`));
    this.worker = worker;
    this.send(worker, { type: "load", data: this.workerData });
    return worker;
  }

  private onMessage(worker: Worker, message: FromWorker): void {
    switch (message.type) {
      case "task":
        void this.runTask(worker, message);
        break;
      case "timer":
        this.executions.addTimer(message.executionId, message.timer);
        break;
      case "event":
        this.executions.addEvent(message.executionId, message.event);
        break;
      case "end": {
        const record = this.executions.get(message.executionId);
        if (!record) break;
        const { type: _type, executionId: _executionId, ...result } = message;
        this.end(record, result);
        break;
      }
    }
  }

  private async runTask(worker: Worker, call: Extract<FromWorker, { type: "task" }>): Promise<void> {
    const record = this.executions.get(call.executionId);
    if (record) record.tasksRunning += 1;
    const outcome = await callTask(this.handlers[call.stateName], call.input, { executionId: call.executionId, stateName: call.stateName });
    if (record && --record.tasksRunning === 0) for (const resolve of record.onIdle.splice(0)) resolve();
    if (this.worker === worker) this.send(worker, { type: "taskResult", callId: call.callId, ...outcome });
  }
}

