/**
 * Worker thread that runs aws-local-stepfunctions for LocalStepFunctions.
 *
 * - The polyfill is imported before the engine (the engine calls
 *   `Promise.withResolvers`, which Node 20 lacks).
 * - TIME_SCALE: this worker's global `setTimeout` is replaced by one that
 *   multiplies the delay of the engine's waits by `timeScale` and reports
 *   every timer of an execution to the main thread (see installEngineTimers). Only this thread is affected: the Task handlers run on
 *   the main thread, so their own timers (HTTP timeouts, the rate limiter) are
 *   never scaled.
 * - Every Task state (nested Map/Parallel ones too) gets a
 *   `taskResourceLocalHandlers` entry that posts `{ executionId, stateName, input }`
 *   to the main thread and awaits the reply, so the engine never calls AWS.
 *
 * Loaded by LocalStepFunctions through tsx's CommonJS hook (see workerEntry
 * there), hence no top-level await here.
 */
import "./promise-with-resolvers";
import { AsyncLocalStorage } from "node:async_hooks";
import { parentPort } from "node:worker_threads";
import { promisify } from "node:util";
import type { RunOptions, StateMachine as EngineStateMachine, StateMachineDefinition } from "aws-local-stepfunctions";
import type { EngineEvent, FinalStatus, FromWorker, HandlerError, ToWorker, WorkerData } from "./protocol";

type JsonInput = Parameters<EngineStateMachine["run"]>[0];
type TaskHandlers = NonNullable<NonNullable<RunOptions["overrides"]>["taskResourceLocalHandlers"]>;
type Execution = ReturnType<EngineStateMachine["run"]>;
type EndMessage = Extract<FromWorker, { type: "end" }>;

const port = parentPort;
if (!port) throw new Error("engine-worker.ts must run in a worker thread (see LocalStepFunctions)");
/** What the current owner loaded (a `load` message); a thread serves one engine at a time (engine-thread.ts). */
let data: WorkerData | undefined;

/** Node clamps larger delays to 1 ms (with a warning); a scaled wait never exceeds this. */
const TIMEOUT_MAX_MS = 2 ** 31 - 1;
/** Cap on draining an execution's event log once its result is known (the engine closes the log before settling). */
const EVENT_DRAIN_MAX_MS = 2_000;

const realSetTimeout = globalThis.setTimeout;

/** The execution whose engine code is running (set around machine.run; async continuations inherit it). */
const currentExecution = new AsyncLocalStorage<string>();

/**
 * The engine's waits all go through its internal `sleep(ms, abortSignal)`
 * (build/main.node.esm.js): Wait states (Seconds, SecondsPath, Timestamp,
 * TimestampPath) and the pause before each Retry attempt
 * (IntervalSeconds x BackoffRate^n, MaxDelaySeconds, jitter). Those delays are
 * multiplied by `timeScale`. (A wait of 0 ms sets no timer and is not reported.)
 *
 * The engine's other two timers are deadlines, not waits, and stay unscaled: a
 * Task state's TimeoutSeconds (60 s when absent) races a handler that runs in
 * real time on the main thread, so scaling it would time out healthy handlers
 * (60 s x 0.01 = 0.6 s); the definition's top-level TimeoutSeconds likewise.
 * The two are told apart by the calling frame: `sleep` in the engine's bundle.
 *
 * Every timer set on behalf of an execution is reported to the main thread
 * (an EngineTimer), before it starts: tests assert the waits the definition
 * asked for instead of measuring time.
 */
function installEngineTimers(timeScale: () => number): void {
  const engineSleepFrame = /\bat sleep \([^)\n]*aws-local-stepfunctions/;
  const calledFromEngineSleep = (): boolean => {
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 10;
    try {
      return engineSleepFrame.test(new Error().stack ?? "");
    } finally {
      Error.stackTraceLimit = limit;
    }
  };
  const engineSetTimeout = function setTimeout(callback: (...args: unknown[]) => void, delay?: number, ...args: unknown[]) {
    const executionId = currentExecution.getStore();
    if (executionId === undefined) return realSetTimeout(callback, delay, ...args);
    const requestedMs = Number(delay ?? 0);
    const wait = calledFromEngineSleep();
    const scaledMs = wait ? Math.min(TIMEOUT_MAX_MS, Math.max(0, requestedMs * timeScale())) : requestedMs;
    post({ type: "timer", executionId, timer: { kind: wait ? "wait" : "deadline", requestedMs, scaledMs } });
    return realSetTimeout(callback, scaledMs, ...args);
  };
  Object.defineProperty(engineSetTimeout, promisify.custom, {
    value: (realSetTimeout as unknown as Record<symbol, unknown>)[promisify.custom],
  });
  globalThis.setTimeout = engineSetTimeout as unknown as typeof globalThis.setTimeout;
}

installEngineTimers(() => data?.timeScale ?? 1);

// After the polyfill and the timer patch: the engine is loaded only now. No
// top-level await: under tsx this module is compiled to CommonJS (see
// LocalStepFunctions' workerEntry).
type Engine = typeof import("aws-local-stepfunctions");
const engineLoaded: Promise<Engine> = import("aws-local-stepfunctions");
/** The current owner's state machine, built by its `load` message. */
let machine: EngineStateMachine | undefined;

interface RunningExecution {
  execution?: Execution;
  /** Set once the result is known (or the execution was aborted): no handler call is made after it. */
  ended: boolean;
}

const executions = new Map<string, RunningExecution>();
const pendingCalls = new Map<number, { resolve: (output: unknown) => void; reject: (error: Error) => void }>();
let nextCallId = 1;

function post(message: FromWorker): void {
  try {
    port!.postMessage(message);
  } catch {
    // Not structured-cloneable (should not happen: engine events are JSON): send its JSON form.
    port!.postMessage(JSON.parse(JSON.stringify(message)) as FromWorker);
  }
}

/**
 * What the definition sees of a handler's error, as for an AWS Lambda function
 * error: Retry/Catch `ErrorEquals` match `Error`, which AWS sets to the
 * function's `errorType` (the thrown error's `name`), and `Cause` is the JSON
 * string of the function's error payload,
 * `{"errorType":"<name>","errorMessage":"<message>","trace":[...]}`.
 * The engine takes `Error` from `error.name` and `Cause` from `error.message`
 * (Catch output, StateFailed events), so the error is built with exactly
 * those. The trace is always empty here.
 */
function lambdaFunctionError(error: HandlerError): Error {
  const lambdaError = new Error(JSON.stringify({ errorType: error.name, errorMessage: error.message, trace: [] }));
  lambdaError.name = error.name;
  return lambdaError;
}

/** For a handler call attempted after the execution ended (a retry racing an abort): neither retried nor caught. */
function endedExecutionError(executionId: string): Error {
  const error = new Error(`Execution ${executionId} has ended`);
  error.name = "States.Runtime";
  Object.defineProperties(error, { isRetryable: { value: false }, isCatchable: { value: false } });
  return error;
}

function taskHandlers(executionId: string): TaskHandlers {
  const handlers: TaskHandlers = {};
  for (const stateName of data!.taskStates) {
    handlers[stateName] = (input) =>
      new Promise((resolve, reject) => {
        const running = executions.get(executionId);
        if (!running || running.ended) {
          reject(endedExecutionError(executionId));
          return;
        }
        const callId = nextCallId++;
        pendingCalls.set(callId, { resolve: resolve as (output: unknown) => void, reject });
        post({ type: "task", callId, executionId, stateName, input });
      });
  }
  return handlers;
}

function outcome(engine: Engine, error: unknown): Omit<EndMessage, "type" | "executionId"> {
  if (error instanceof engine.ExecutionAbortedError) return { status: "ABORTED" };
  if (error instanceof engine.ExecutionTimeoutError) {
    return { status: "TIMED_OUT", error: "States.Timeout", cause: "The execution exceeded its TimeoutSeconds" };
  }
  // ExecutionError wraps the error that ended the run: a handler's (name + Lambda Cause JSON),
  // a Fail state's (Error + Cause) or an engine one (States.Runtime, States.NoChoiceMatched, ...).
  const failure = error instanceof engine.ExecutionError && error.cause instanceof Error ? error.cause : error;
  if (failure instanceof Error) return { status: "FAILED", error: failure.name, cause: failure.message };
  return { status: "FAILED", error: "States.Runtime", cause: String(failure) };
}

function startExecution(engine: Engine, executionId: string, input: unknown): void {
  if (machine === undefined || data === undefined) throw new Error("engine-worker: start before load");
  const { stateMachineArn } = data;
  const stateMachine = machine;
  // Registered before run(): the engine calls the first Task handler synchronously.
  const running: RunningExecution = { ended: false };
  executions.set(executionId, running);
  let execution: Execution;
  try {
    execution = currentExecution.run(executionId, () =>
      stateMachine.run(input as JsonInput, {
        overrides: { taskResourceLocalHandlers: taskHandlers(executionId) },
        context: {
          Execution: { Id: executionId, Name: executionId.split(":").pop() ?? executionId },
          StateMachine: { Id: stateMachineArn, Name: stateMachineArn.split(":").pop() ?? "local" },
        },
      }),
    );
  } catch (error) {
    executions.delete(executionId);
    post({ type: "end", executionId, ...outcome(engine, error) });
    return;
  }
  running.execution = execution;

  // Forward the event log as it is written.
  const drained = (async () => {
    for await (const event of execution.eventLogs) post({ type: "event", executionId, event: event as EngineEvent });
  })();

  void execution.result
    .then(
      (output): Omit<EndMessage, "type" | "executionId"> => ({ status: "SUCCEEDED" as FinalStatus, output }),
      (error: unknown) => outcome(engine, error),
    )
    .then(async (end) => {
      running.ended = true;
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        drained.catch(() => undefined),
        new Promise((resolve) => (timer = realSetTimeout(resolve, EVENT_DRAIN_MAX_MS))),
      ]);
      clearTimeout(timer);
      executions.delete(executionId);
      post({ type: "end", executionId, ...end });
    });
}

function handle(message: ToWorker, engine: Engine): void {
  switch (message.type) {
    case "load":
      // A thread is handed on only once every execution of its previous owner has ended (engine-thread.ts).
      if (executions.size > 0) throw new Error("engine-worker: load while executions run");
      pendingCalls.clear();
      data = message.data;
      // LocalStepFunctions validated the (substituted) definition already, with asl-validator 4.
      machine = new engine.StateMachine(data.definition as StateMachineDefinition, { validationOptions: { noValidate: true } });
      break;
    case "start":
      startExecution(engine, message.executionId, message.input);
      break;
    case "abort": {
      const running = executions.get(message.executionId);
      if (running && !running.ended) {
        running.ended = true;
        running.execution?.abort();
      }
      break;
    }
    case "taskResult": {
      const call = pendingCalls.get(message.callId);
      if (!call) break;
      pendingCalls.delete(message.callId);
      if (message.ok) call.resolve(message.output);
      else call.reject(lambdaFunctionError(message.error));
      break;
    }
  }
}

// Messages are handled in arrival order, the first ones once the engine has loaded.
// A failed load (or a bug in handle) rejects the queue: an unhandled rejection, which ends the
// worker with an "error" event, on which the main thread fails every execution.
let queue = engineLoaded;
port.on("message", (message: ToWorker) => {
  queue = queue.then((engine) => {
    handle(message, engine);
    return engine;
  });
});
