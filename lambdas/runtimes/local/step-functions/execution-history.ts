import type { EngineEvent, EngineTimer, FinalStatus } from "./protocol";

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

/** A timer, numbered in the order timers were set across every engine of this process (a run's waits span two engines). */
export interface SequencedTimer extends EngineTimer {
  readonly seq: number;
}

/** An execution as list() shows it. */
export interface LocalExecutionInfo {
  readonly executionId: string;
  /** The JSON input it was started with. */
  readonly input: unknown;
  readonly status: ExecutionStatus;
}

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

let nextTimerSeq = 0;

export interface ExecutionRecord {
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

/**
 * The executions one engine started, with their results and histories, kept
 * within bounds: a long-running local service would otherwise keep every
 * finished execution, and every page task's events, for ever.
 */
export class ExecutionHistory {
  private readonly executions = new Map<string, ExecutionRecord>();
  /** Finished executions, oldest first: only the last finishedKept are kept. */
  private readonly finished: string[] = [];
  /** Finished executions that still hold their history, oldest first, and the events and timers they hold together. */
  private readonly withHistory: ExecutionRecord[] = [];
  private historySize = 0;

  constructor(
    private readonly finishedKept = FINISHED_EXECUTIONS_KEPT,
    private readonly finishedHistoryEventsKept = FINISHED_HISTORY_EVENTS_KEPT,
  ) {}

  add(id: string, input: unknown): ExecutionRecord {
    let settle!: (result: LocalExecutionResult) => void;
    const done = new Promise<LocalExecutionResult>((resolve) => (settle = resolve));
    const record: ExecutionRecord = { id, input, status: "RUNNING", events: [], timers: [], tasksRunning: 0, onIdle: [], done, settle };
    this.executions.set(id, record);
    return record;
  }

  get(executionRef: string): ExecutionRecord | undefined {
    return this.executions.get(executionRef);
  }

  /** The record; throws for an unknown reference. */
  record(executionRef: string): ExecutionRecord {
    const record = this.executions.get(executionRef);
    if (!record) throw new Error(`Unknown execution: ${executionRef}`);
    return record;
  }

  /** The record, if it still holds its history (see FINISHED_HISTORY_EVENTS_KEPT). */
  withHistoryOf(executionRef: string): ExecutionRecord {
    const record = this.record(executionRef);
    if (record.historyDropped) {
      throw new Error(`The history was dropped for finished execution ${executionRef} (newer ones hold ${this.finishedHistoryEventsKept} events); its result is kept`);
    }
    return record;
  }

  all(): IterableIterator<ExecutionRecord> {
    return this.executions.values();
  }

  list(): readonly LocalExecutionInfo[] {
    return [...this.executions.values()].map(({ id, input, status }) => ({ executionId: id, input, status }));
  }

  addEvent(executionRef: string, event: EngineEvent): void {
    const record = this.executions.get(executionRef);
    if (!record || record.historyDropped) return;
    record.events.push({ ...event, id: record.events.length + 1, executionId: executionRef });
  }

  addTimer(executionRef: string, timer: EngineTimer): void {
    const record = this.executions.get(executionRef);
    if (record && !record.historyDropped) record.timers.push({ ...timer, seq: nextTimerSeq++ });
  }

  /** Settles a running execution; false when it had ended already. */
  end(record: ExecutionRecord, result: LocalExecutionResult): boolean {
    if (record.status !== "RUNNING") return false;
    record.status = result.status;
    record.settle(result);
    this.finished.push(record.id);
    while (this.finished.length > this.finishedKept) this.executions.delete(this.finished.shift()!);
    this.withHistory.push(record);
    this.historySize += record.events.length + record.timers.length;
    while (this.historySize > this.finishedHistoryEventsKept && this.withHistory.length > 1) {
      const oldest = this.withHistory.shift()!;
      this.historySize -= oldest.events.length + oldest.timers.length;
      oldest.events.length = 0;
      oldest.timers.length = 0;
      oldest.historyDropped = true;
    }
    return true;
  }
}
