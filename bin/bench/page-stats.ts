import { handlerMs, inProcessMs, limiterWaitMs, overheadMs, type PageSample, type TaskSample } from "./page-sample";
import { median, p95 } from "./stats";

/** Medians (and the p95 of the overhead) over a set of page tasks. */
export interface PageBreakdown {
  readonly pages: number;
  readonly handlerMs: number;
  /** The task without its wait for a rate-limit slot. */
  readonly busyMs: number;
  readonly fetchMs: number;
  readonly overheadMs: number;
  readonly overheadP95Ms: number;
  readonly limiterWaitMs: number;
  /** DynamoDB calls of the task, the limiter's own included. */
  readonly ddbMs: number;
  readonly ddbCalls: number;
  /** DynamoDB round trips on the critical path (overlapping calls count once). */
  readonly ddbRoundTrips: number;
  readonly commitMs: number;
  readonly inProcessMs: number;
}

export function breakdown(samples: readonly PageSample[]): PageBreakdown {
  const of = (pick: (sample: PageSample) => number) => median(samples.map(pick));
  return {
    pages: samples.length,
    handlerMs: of(handlerMs),
    busyMs: of((sample) => handlerMs(sample) - limiterWaitMs(sample)),
    fetchMs: of((sample) => sample.fetchMs),
    overheadMs: of(overheadMs),
    overheadP95Ms: p95(samples.map(overheadMs)),
    limiterWaitMs: of(limiterWaitMs),
    ddbMs: of((sample) => sample.ddbMs),
    ddbCalls: of((sample) => sample.ddbCalls),
    ddbRoundTrips: of((sample) => sample.ddbRoundTrips),
    commitMs: of((sample) => sample.commitMs),
    inProcessMs: of(inProcessMs),
  };
}

/**
 * For each page task, the time from its start to the next task's start
 * (a cycle), and the idle time between its end and the next task's start
 * (the orchestration gap). Only consecutive tasks are paired.
 */
export function cycles(
  pages: readonly PageSample[],
  tasks: readonly TaskSample[],
): { cycleMs: number[]; gapMs: number[]; workMs: number[]; /** The page each entry above is of, in the same order. */ paired: PageSample[] } {
  const starts = tasks.map((task) => task.startedAt).sort((a, b) => a - b);
  const cycleMs: number[] = [];
  const gapMs: number[] = [];
  const workMs: number[] = [];
  const paired: PageSample[] = [];
  let next = 0;
  for (const page of [...pages].sort((a, b) => a.startedAt - b.startedAt)) {
    // The first task that starts after this one ended (tasks never overlap: a run is one thread of states).
    while (next < starts.length && starts[next]! < page.endedAt) next += 1;
    const nextStart = starts[next];
    if (nextStart === undefined) continue;
    const cycle = nextStart - page.startedAt;
    cycleMs.push(cycle);
    gapMs.push(nextStart - page.endedAt);
    // What a page costs when the limiter never makes it wait: the cycle minus the wait.
    workMs.push(cycle - limiterWaitMs(page));
    paired.push(page);
  }
  return { cycleMs, gapMs, workMs, paired };
}

/** One kind of DynamoDB call over a set of page tasks: how often it occurs and what it costs. */
export interface CallBreakdown {
  readonly label: string;
  /** Share of the page tasks that made this call (0..1). */
  readonly share: number;
  readonly medianMs: number;
  /** Median start of the call, in ms after its task started (where it sits on the task's timeline). */
  readonly medianOffsetMs: number;
}

/** Each labelled DynamoDB call (connection read, limiter write, each transaction...) in the order of its median start. */
export function callBreakdown(samples: readonly PageSample[]): CallBreakdown[] {
  const byLabel = new Map<string, { ms: number[]; offsets: number[] }>();
  for (const sample of samples) {
    for (const call of sample.calls) {
      let entry = byLabel.get(call.label);
      if (entry === undefined) byLabel.set(call.label, (entry = { ms: [], offsets: [] }));
      entry.ms.push(call.ms);
      entry.offsets.push(call.offsetMs);
    }
  }
  return [...byLabel.entries()]
    .map(([label, entry]) => ({
      label,
      share: entry.ms.length / Math.max(1, samples.length),
      medianMs: median(entry.ms),
      medianOffsetMs: median(entry.offsets),
    }))
    .sort((a, b) => a.medianOffsetMs - b.medianOffsetMs);
}
