import type { PageSample, TaskSample } from "./page-sample";
import { busiestWindow, median } from "./stats";

/** One request of a sequential run: its slot (the limiter's recorded start), when it was sent, when the source stamped it. Epoch ms, one clock (Date.now). */
export interface TimedRequest {
  readonly label: string;
  readonly slotAt: number;
  readonly sentAt: number;
  /** When the HTTP client wrote it to the socket (sentAt when not seen). */
  readonly writtenAt: number;
  readonly arrivedAt: number;
}

/**
 * Pairs each page task that sent a request with the source's stamp of it, in
 * order (a sequential run with faults off sends one request per page task).
 * Null when the counts differ (then the pairing would be a guess).
 */
export function requestTimeline(pages: readonly PageSample[], arrivals: readonly number[]): TimedRequest[] | null {
  const sent = [...pages].filter((page) => page.sentAtEpoch !== null && page.slotAt !== null).sort((a, b) => a.startedAt - b.startedAt);
  if (sent.length !== arrivals.length) return null;
  const ordered = [...arrivals].sort((a, b) => a - b);
  return sent.map((page, i) => ({
    label: `${page.entity} p${page.page}`,
    slotAt: page.slotAt!,
    sentAt: page.sentAtEpoch!,
    writtenAt: page.writtenAtEpoch ?? page.sentAtEpoch!,
    arrivedAt: ordered[i]!,
  }));
}

/** The busiest one-second window of slots, of sends and of arrivals; and the requests of the busiest arrival window. */
export function windows(requests: readonly TimedRequest[]): { slots: number; sends: number; arrivals: number; busiest: TimedRequest[] } {
  const arrivals = requests.map((request) => request.arrivedAt);
  const most = busiestWindow(arrivals, 1000);
  const ordered = [...requests].sort((a, b) => a.arrivedAt - b.arrivedAt);
  let busiest: TimedRequest[] = [];
  for (let start = 0; start < ordered.length; start += 1) {
    const inside = ordered.filter((request) => request.arrivedAt >= ordered[start]!.arrivedAt && request.arrivedAt < ordered[start]!.arrivedAt + 1000);
    if (inside.length === most) {
      busiest = inside;
      break;
    }
  }
  return {
    slots: busiestWindow(requests.map((request) => request.slotAt), 1000),
    sends: busiestWindow(requests.map((request) => request.sentAt), 1000),
    arrivals: most,
    busiest,
  };
}

/**
 * The engine's gap between one page task's end and the next one's start, split
 * by whether the next task runs in the same page-loop segment (an Express
 * child execution) or in the next one (the parent's Route, RunPages, the
 * child's start and its Enter/Resume states in between).
 */
export function segmentGaps(tasks: readonly TaskSample[]): { withinMs: number[]; boundaryMs: number[] } {
  const pages = tasks.filter((task) => task.state === "SyncPage").sort((a, b) => a.startedAt - b.startedAt);
  const withinMs: number[] = [];
  const boundaryMs: number[] = [];
  for (let i = 1; i < pages.length; i += 1) {
    const previous = pages[i - 1]!;
    const next = pages[i]!;
    (previous.executionId === next.executionId ? withinMs : boundaryMs).push(next.startedAt - previous.endedAt);
  }
  return { withinMs, boundaryMs };
}

/** The time the segment boundaries cost a run beyond an ordinary gap between tasks: sum of (boundary gap - median gap within a segment). */
export function boundaryCostMs(gaps: { withinMs: readonly number[]; boundaryMs: readonly number[] }): number {
  const ordinary = gaps.withinMs.length === 0 ? 0 : median(gaps.withinMs);
  return gaps.boundaryMs.reduce((sum, gap) => sum + Math.max(0, gap - ordinary), 0);
}
