import type { ProbedCall } from "./process-probe";

/** A Task state's run, epoch ms; for a page task, the execution (segment) that ran it. */
export interface TaskSpan {
  readonly state: string;
  readonly executionId?: string;
  readonly startedAt: number;
  readonly endedAt: number;
}

/** One call into the service's logger: when, and how long it took (JSON and the write). */
export interface LogCall {
  readonly at: number;
  readonly ms: number;
}

/**
 * Where a sync's time goes, per page, in parts that add up to the wall time
 * per page: the page tasks' fetches, their DynamoDB calls by operation (minus
 * the time calls overlapped), their logging, the edges of each task (before
 * its first call and after its last: the task's input parsed, the worker's
 * message in and the result's way back) and its in-process work between
 * calls; then the time between page tasks, within a segment and at a
 * segment boundary. Totals over the run divided by its pages, so a part that
 * happens once per entity or per segment shows as its share of a page.
 */
export interface PageBudget {
  readonly pages: number;
  /** First page task's start to the last one's end. */
  readonly wallMs: number;
  readonly parts: readonly BudgetPart[];
  readonly boundaries: number;
}

export interface BudgetPart {
  readonly name: string;
  /** Total over the run. */
  readonly ms: number;
  /** Calls or events counted in this part, when it has any. */
  readonly count?: number;
}

export const PAGE_TASK = "SyncPage";

export function pageBudget(input: {
  readonly tasks: readonly TaskSpan[];
  readonly dynamodb: readonly ProbedCall[];
  readonly fetches: readonly ProbedCall[];
  readonly logs: readonly LogCall[];
}): PageBudget {
  const pages = input.tasks.filter((task) => task.state === PAGE_TASK).sort((a, b) => a.startedAt - b.startedAt);
  const first = pages[0];
  const last = pages.at(-1);
  if (first === undefined || last === undefined) throw new Error("no page task was seen");
  const byOp = new Map<string, { ms: number; count: number }>();
  let fetchMs = 0;
  let fetches = 0;
  let overlapMs = 0;
  let logMs = 0;
  let logLines = 0;
  let edgesMs = 0;
  let betweenMs = 0;
  const inside = (at: number, span: TaskSpan) => at >= span.startedAt && at <= span.endedAt;
  for (const span of pages) {
    const calls = input.dynamodb.filter((call) => inside(call.startedAt, span) && Number.isFinite(call.endedAt));
    const gets = input.fetches.filter((call) => inside(call.startedAt, span) && Number.isFinite(call.endedAt));
    for (const call of calls) {
      const entry = byOp.get(call.label) ?? { ms: 0, count: 0 };
      entry.ms += call.endedAt - call.startedAt;
      entry.count += 1;
      byOp.set(call.label, entry);
    }
    const io = [...calls, ...gets];
    const summed = io.reduce((sum, call) => sum + (call.endedAt - call.startedAt), 0);
    const busy = unionMs(io);
    overlapMs += summed - busy;
    fetchMs += gets.reduce((sum, call) => sum + (call.endedAt - call.startedAt), 0);
    fetches += gets.length;
    const logs = input.logs.filter((log) => inside(log.at, span));
    logMs += logs.reduce((sum, log) => sum + log.ms, 0);
    logLines += logs.length;
    const firstIo = Math.min(...io.map((call) => call.startedAt));
    const lastIo = Math.max(...io.map((call) => Math.min(call.endedAt, span.endedAt)));
    const edges = io.length === 0 ? 0 : firstIo - span.startedAt + (span.endedAt - lastIo);
    edgesMs += edges;
    betweenMs += span.endedAt - span.startedAt - busy - edges;
  }
  // In-process work between calls, less the logging inside it.
  const inProcessMs = betweenMs - logMs;
  let withinMs = 0;
  let boundaryMs = 0;
  let boundaries = 0;
  let within = 0;
  for (let i = 1; i < pages.length; i += 1) {
    const gap = pages[i]!.startedAt - pages[i - 1]!.endedAt;
    if (pages[i]!.executionId === pages[i - 1]!.executionId) {
      withinMs += gap;
      within += 1;
    } else {
      boundaryMs += gap;
      boundaries += 1;
    }
  }
  const ops = [...byOp.entries()].sort((a, b) => b[1].ms - a[1].ms);
  return {
    pages: pages.length,
    wallMs: last.endedAt - first.startedAt,
    boundaries,
    parts: [
      { name: "fetch from the source (HTTP, in the page task)", ms: fetchMs, count: fetches },
      ...ops.map(([op, entry]) => ({ name: `DynamoDB ${op}`, ms: entry.ms, count: entry.count })),
      { name: "calls in flight together (counted once)", ms: -overlapMs },
      { name: "logging (the service's logger: JSON and write)", ms: logMs, count: logLines },
      { name: "task edges: before the first call, after the last (input parsed, worker message, result back)", ms: edgesMs },
      { name: "in process between calls (validate, normalise, plan, JSON)", ms: inProcessMs },
      { name: "between page tasks, within a segment (engine, worker messages)", ms: withinMs, count: within },
      { name: "between page tasks, at a segment boundary (parent Route, RunPages, child start)", ms: boundaryMs, count: boundaries },
    ],
  };
}

/** Wall time covered by at least one of the calls. */
function unionMs(calls: readonly ProbedCall[]): number {
  const ordered = [...calls].sort((a, b) => a.startedAt - b.startedAt);
  let total = 0;
  let start = Number.NaN;
  let end = Number.NaN;
  for (const call of ordered) {
    if (!(call.startedAt <= end)) {
      if (Number.isFinite(start)) total += end - start;
      start = call.startedAt;
      end = call.endedAt;
    } else end = Math.max(end, call.endedAt);
  }
  if (Number.isFinite(start)) total += end - start;
  return total;
}
