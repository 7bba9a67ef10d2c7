import { randomUUID } from "node:crypto";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import type { RunStarter } from "../../core/ports/run-starter";
import type { EngineEvent, EngineTimer, FinalStatus, FromWorker, HandlerError, ToWorker, WorkerData } from "./protocol";

export type { EngineTimer } from "./protocol";
import { validateDefinition } from "./validate-definition";

/**
 * Runs an ASL definition (the same file Step Functions runs in AWS) locally on
 * aws-local-stepfunctions, with local functions in place of the Task states'
 * Lambda functions.
 *
 * The engine runs in a worker thread (engine-worker.ts) whose engine waits —
 * Wait states and Retry backoff — are multiplied by `timeScale`; the handlers
 * run here, on the calling thread, in real time. A handler may call `start()`
 * itself (a ContinueAsNew task starts the next execution of the run).
 */

/** Context passed to a handler besides its input. */
export interface TaskContext {
  /** The execution's reference, as returned by start() (also `$$.Execution.Id`). */
  readonly executionId: string;
  readonly stateName: string;
}

/**
 * A Task state's local function. Its input and output are JSON (the output is
 * JSON round-tripped, `undefined` becoming null, as a Lambda's would be). A
 * thrown error reaches the definition as a Lambda function error: `Error` is
 * its `name`, `Cause` is `{"errorType","errorMessage","trace"}` JSON.
 */
export type TaskHandler = (input: unknown, context: TaskContext) => Promise<unknown>;

export interface LocalStepFunctionsOptions {
  /** The parsed ASL definition. Not modified. */
  readonly definition: object;
  /** By Task state name; every Task state (nested Map/Parallel ones included) needs one. */
  readonly handlers: Readonly<Record<string, TaskHandler>>;
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

export type ExecutionStatus = "RUNNING" | FinalStatus;

export interface LocalExecutionResult {
  /** TIMED_OUT only when the definition sets a top-level TimeoutSeconds. */
  readonly status: FinalStatus;
  /** The execution's output, when SUCCEEDED. */
  readonly output?: unknown;
  /** FAILED / TIMED_OUT: the error name, e.g. a Fail state's Error or a handler error's name. */
  readonly error?: string;
  /** FAILED / TIMED_OUT: the cause (for a handler error, the Lambda-style JSON string). */
  readonly cause?: string;
}

/**
 * One entry of the engine's event log, as it was written (`timestamp` is
 * epoch milliseconds in the worker), numbered from 1 per execution.
 */
export type LocalHistoryEvent = EngineEvent & { readonly id: number; readonly executionId: string };

const DEFAULT_STATE_MACHINE_ARN = "arn:aws:states:us-east-1:000000000000:stateMachine:local";
/**
 * Finished executions whose result and history stay readable. An older one is
 * forgotten: `isRunning` says false for it, as Step Functions does for an
 * execution that has ended, and `result`/`events` no longer know it.
 */
export const FINISHED_EXECUTIONS_KEPT = 200;
/**
 * Events (and timers) that the histories of finished executions keep
 * together, newest execution first; the newest finished one always keeps its
 * whole history. An older one keeps its result, but its history reads as
 * dropped. A history grows with an execution's page tasks, so a bound by
 * count alone lets retained memory grow with the size of the syncs.
 */
export const FINISHED_HISTORY_EVENTS_KEPT = 2_000;

/** A timer, numbered in the order timers were set across every engine of this process (a run's waits span two engines). */
export interface SequencedTimer extends EngineTimer {
  readonly seq: number;
}
let nextTimerSeq = 0;
/** How long stop() waits for aborted executions to report before terminating the worker. */
const STOP_GRACE_MS = 2_000;
const PLACEHOLDER = /\$\{([^}]*)\}/g;

/** The TIME_SCALE setting: a number >= 0, 1 when unset or empty. Throws on anything else. */
export function timeScaleFromEnv(env: Readonly<Record<string, string | undefined>> = process.env): number {
  const raw = env["TIME_SCALE"]?.trim();
  if (raw === undefined || raw === "") return 1;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0) throw new RangeError(`TIME_SCALE must be a number >= 0, got "${raw}"`);
  return value;
}

/** An execution as list() shows it. */
export interface LocalExecutionInfo {
  readonly executionId: string;
  /** The JSON input it was started with. */
  readonly input: unknown;
  readonly status: ExecutionStatus;
}

interface ExecutionRecord {
  readonly id: string;
  readonly input: unknown;
  status: ExecutionStatus;
  readonly events: LocalHistoryEvent[];
  readonly timers: SequencedTimer[];
  /** Finished, and its events and timers were let go (finishedHistoryEventsKept). */
  historyDropped?: boolean;
  /** Handler calls of this execution still running on this thread. */
  tasksRunning: number;
  /** Called when tasksRunning drops to 0. */
  readonly onIdle: (() => void)[];
  readonly done: Promise<LocalExecutionResult>;
  settle(result: LocalExecutionResult): void;
}

export class LocalStepFunctions implements RunStarter {
  readonly timeScale: number;
  /** The definition as the engine runs it (substituted, placeholder ARNs replaced). */
  readonly definition: object;
  private readonly handlers: Readonly<Record<string, TaskHandler>>;
  private readonly workerData: WorkerData;
  private readonly executions = new Map<string, ExecutionRecord>();
  /** Finished executions, oldest first: only the last FINISHED_EXECUTIONS_KEPT are kept. */
  private readonly finished: string[] = [];
  private readonly finishedKept: number;
  /** Finished executions that still hold their history, oldest first, and the events and timers they hold together. */
  private readonly withHistory: ExecutionRecord[] = [];
  private historySize = 0;
  private readonly finishedHistoryEventsKept: number;
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
    this.finishedKept = options.finishedExecutionsKept ?? FINISHED_EXECUTIONS_KEPT;
    this.handlers = { ...options.handlers };
    this.finishedHistoryEventsKept = options.finishedHistoryEventsKept ?? FINISHED_HISTORY_EVENTS_KEPT;

    const definition = prepareDefinition(options.definition, options.substitutions ?? {});
    const taskStates = taskStateNames(definition);
    const missing = taskStates.filter((name) => typeof this.handlers[name] !== "function");
    if (missing.length > 0) throw new Error(`No local handler for Task state(s): ${missing.join(", ")}`);
    if (options.validate ?? true) {
      const { valid, errors } = validateDefinition(definition);
      if (!valid) throw new Error(`Invalid state machine definition:\n${errors.join("\n")}`);
    }
    this.definition = definition;
    this.workerData = {
      definition,
      taskStates,
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
    let settle!: (result: LocalExecutionResult) => void;
    const done = new Promise<LocalExecutionResult>((resolve) => (settle = resolve));
    this.executions.set(id, { id, input: json, status: "RUNNING", events: [], timers: [], tasksRunning: 0, onIdle: [], done, settle });
    const worker = this.ensureWorker();
    if (this.running++ === 0) worker.ref();
    this.send(worker, { type: "start", executionId: id, input: json });
    return id;
  }

  /** Whether this engine started the execution (and still remembers it). */
  knows(executionRef: string): boolean {
    return this.executions.has(executionRef);
  }

  async isRunning(executionRef: string): Promise<boolean> {
    return this.executions.get(executionRef)?.status === "RUNNING";
  }

  /** Resolves when the execution has ended. Rejects for an unknown reference. */
  async result(executionRef: string): Promise<LocalExecutionResult> {
    return this.record(executionRef).done;
  }

  /** A snapshot of the execution's event log so far (complete once result() has resolved). */
  events(executionRef: string): readonly LocalHistoryEvent[] {
    return [...this.withHistoryOf(executionRef).events];
  }

  /**
   * The timers the engine set for the execution so far, in order (complete once
   * result() has resolved): every Wait state and pause before a Retry (`wait`,
   * with the delay the definition asked for and the one scaled by timeScale),
   * and every TimeoutSeconds deadline (`deadline`, never scaled). Lets a test
   * assert the waits a run asked for without measuring time.
   */
  timers(executionRef: string): readonly SequencedTimer[] {
    return [...this.withHistoryOf(executionRef).timers];
  }

  /**
   * Resolves once the execution has ended and no handler call of it is still
   * running: after an abort, the handler that was running finishes (its result
   * is dropped) and only then does this resolve.
   */
  async settled(executionRef: string): Promise<void> {
    const record = this.record(executionRef);
    await record.done;
    if (record.tasksRunning === 0) return;
    await new Promise<void>((resolve) => record.onIdle.push(resolve));
  }

  /** Every execution started so far, in start order. */
  list(): readonly LocalExecutionInfo[] {
    return [...this.executions.values()].map(({ id, input, status }) => ({ executionId: id, input, status }));
  }

  /**
   * Aborts a running execution and resolves once it has ended (ABORTED, unless
   * it ended otherwise first). The engine stops before the next state; a
   * handler already running finishes, and its result is dropped.
   */
  async abort(executionRef: string): Promise<void> {
    const record = this.record(executionRef);
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
    const running = [...this.executions.values()].filter((record) => record.status === "RUNNING");
    const worker = this.worker;
    if (worker) for (const record of running) this.send(worker, { type: "abort", executionId: record.id });
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.all(running.map((record) => record.done)),
      new Promise((resolve) => (timer = setTimeout(resolve, STOP_GRACE_MS))),
    ]);
    clearTimeout(timer);
    for (const record of running) this.end(record, { status: "ABORTED" });
    this.worker = undefined;
    await worker?.terminate();
  }

  private record(executionRef: string): ExecutionRecord {
    const record = this.executions.get(executionRef);
    if (!record) throw new Error(`Unknown execution: ${executionRef}`);
    return record;
  }

  /** The record, if it still holds its history (see FINISHED_HISTORY_EVENTS_KEPT). */
  private withHistoryOf(executionRef: string): ExecutionRecord {
    const record = this.record(executionRef);
    if (record.historyDropped) {
      throw new Error(`The history was dropped for finished execution ${executionRef} (newer ones hold ${this.finishedHistoryEventsKept} events); its result is kept`);
    }
    return record;
  }

  private end(record: ExecutionRecord, result: LocalExecutionResult): void {
    if (record.status !== "RUNNING") return;
    record.status = result.status;
    record.settle(result);
    if (--this.running === 0) this.worker?.unref();
    // A long-running local service would otherwise keep every finished execution's history for ever.
    this.finished.push(record.id);
    while (this.finished.length > this.finishedKept) this.executions.delete(this.finished.shift()!);
    // ...nor every page task's events: histories are kept newest first within a budget of events.
    this.withHistory.push(record);
    this.historySize += record.events.length + record.timers.length;
    while (this.historySize > this.finishedHistoryEventsKept && this.withHistory.length > 1) {
      const oldest = this.withHistory.shift()!;
      this.historySize -= oldest.events.length + oldest.timers.length;
      oldest.events.length = 0;
      oldest.timers.length = 0;
      oldest.historyDropped = true;
    }
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
    const { entry, eval: isCode } = workerEntry();
    const worker = new Worker(entry, { eval: isCode, workerData: this.workerData });
    worker.unref();
    worker.on("message", (message: FromWorker) => this.onMessage(worker, message));
    const failAll = (error: string, cause: string) => {
      if (this.worker !== worker) return;
      this.worker = undefined;
      for (const record of this.executions.values()) this.end(record, { status: "FAILED", error, cause });
      this.running = 0;
    };
    worker.on("error", (error) => failAll("LocalStepFunctions.WorkerError", error.stack ?? error.message));
    worker.on("exit", (code) => failAll("LocalStepFunctions.WorkerExited", `The engine worker exited with code ${code}`));
    this.worker = worker;
    return worker;
  }

  private onMessage(worker: Worker, message: FromWorker): void {
    switch (message.type) {
      case "task":
        void this.runTask(worker, message);
        break;
      case "timer": {
        const record = this.executions.get(message.executionId);
        if (record && !record.historyDropped) record.timers.push({ ...message.timer, seq: nextTimerSeq++ });
        break;
      }
      case "event": {
        const record = this.executions.get(message.executionId);
        if (!record || record.historyDropped) break;
        record.events.push({ ...message.event, id: record.events.length + 1, executionId: message.executionId });
        break;
      }
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
    let reply: ToWorker;
    const record = this.executions.get(call.executionId);
    if (record) record.tasksRunning += 1;
    try {
      const handler = this.handlers[call.stateName];
      if (!handler) throw namedError("States.TaskFailed", `No local handler for Task state '${call.stateName}'`);
      const output = await handler(call.input, { executionId: call.executionId, stateName: call.stateName });
      reply = { type: "taskResult", callId: call.callId, ok: true, output: JSON.parse(JSON.stringify(output ?? null)) };
    } catch (error) {
      reply = { type: "taskResult", callId: call.callId, ok: false, error: describeError(error) };
    } finally {
      if (record && --record.tasksRunning === 0) for (const resolve of record.onIdle.splice(0)) resolve();
    }
    if (this.worker === worker) this.send(worker, reply);
  }
}

/**
 * How the worker is loaded. As TypeScript (tsx, vitest): an eval'd CommonJS bootstrap that
 * registers tsx's CommonJS hook in the worker and requires engine-worker.ts.
 * `execArgv: ["--import", "tsx"]` does not work on Node 20: ESM loader hooks
 * are not applied to a worker's own modules ("Unknown file extension .ts"),
 * and neither is `tsx/esm/api`'s register() called inside the worker.
 * If this module has been compiled/bundled to `.js`, engine-worker.js next to
 * it is loaded as is.
 */
function workerEntry(): { entry: string | URL; eval: boolean } {
  const self = import.meta.url;
  if (/\.[cm]?ts$/.test(new URL(self).pathname)) {
    const tsxCjsApi = createRequire(self).resolve("tsx/cjs/api");
    const worker = fileURLToPath(new URL("./engine-worker.ts", self));
    return { entry: `require(${JSON.stringify(tsxCjsApi)}).register();\nrequire(${JSON.stringify(worker)});\n`, eval: true };
  }
  return { entry: new URL("./engine-worker.js", self), eval: false };
}

function namedError(name: string, message: string): Error {
  const error = new Error(message);
  error.name = name;
  return error;
}

function describeError(error: unknown): HandlerError {
  if (error instanceof Error) return { name: error.name, message: error.message };
  if (typeof error === "string") return { name: "Error", message: error };
  let message: string;
  try {
    message = JSON.stringify(error) ?? String(error);
  } catch {
    message = String(error);
  }
  return { name: "Error", message };
}

/**
 * A deep copy with DefinitionSubstitutions applied to every string (as CDK
 * does in AWS). A Task `Resource` that still holds a `${...}` placeholder gets
 * a dummy Lambda ARN named after it (`${PageTaskArn}` ->
 * `arn:aws:lambda:us-east-1:000000000000:function:PageTaskArn`): it passes the
 * ARN check and is never called, every Task state running a local handler.
 */
function prepareDefinition(definition: object, substitutions: Readonly<Record<string, string>>): object {
  const substitute = (value: unknown): unknown => {
    if (typeof value === "string") {
      return value.replace(PLACEHOLDER, (placeholder, key: string) =>
        Object.hasOwn(substitutions, key) ? substitutions[key]! : placeholder,
      );
    }
    if (Array.isArray(value)) return value.map(substitute);
    if (typeof value === "object" && value !== null) {
      return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, substitute(item)]));
    }
    return value;
  };
  const prepared = substitute(definition) as object;
  for (const state of allStates(prepared)) {
    if (state["Type"] === "Task" && typeof state["Resource"] === "string" && state["Resource"].includes("${")) {
      const name = [...state["Resource"].matchAll(PLACEHOLDER)].map((match) => match[1]).join("-");
      const functionName = name.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 64) || "LocalTask";
      state["Resource"] = `arn:aws:lambda:us-east-1:000000000000:function:${functionName}`;
    }
  }
  return prepared;
}

type StateObject = Record<string, unknown>;

function* allStates(machine: unknown): Generator<StateObject, void, undefined> {
  for (const [, state] of namedStates(machine)) yield state;
}

/** Every state with its name, nested Map (Iterator/ItemProcessor) and Parallel (Branches) states included. */
function* namedStates(machine: unknown): Generator<[string, StateObject], void, undefined> {
  if (typeof machine !== "object" || machine === null) return;
  const states = (machine as StateObject)["States"];
  if (typeof states !== "object" || states === null) return;
  for (const [name, state] of Object.entries(states as Record<string, unknown>)) {
    if (typeof state !== "object" || state === null) continue;
    const object = state as StateObject;
    yield [name, object];
    yield* namedStates(object["Iterator"]);
    yield* namedStates(object["ItemProcessor"]);
    if (Array.isArray(object["Branches"])) for (const branch of object["Branches"]) yield* namedStates(branch);
  }
}

function taskStateNames(definition: object): string[] {
  const names = new Set<string>();
  for (const [name, state] of namedStates(definition)) if (state["Type"] === "Task") names.add(name);
  return [...names];
}
