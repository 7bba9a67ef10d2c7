/** The local runtime's timer for the scheduled dispatcher; the SCHEDULE syntax is in lambdas/domain/sync/schedule-interval.ts. */

/** Where the schedule gets its timer from: the real one, or one a test fires by hand. */
export interface ScheduleTimer {
  /** Calls `callback` once after `ms`; must not keep the process alive. */
  set(callback: () => unknown, ms: number): unknown;
  clear(handle: unknown): void;
}

const realTimer: ScheduleTimer = {
  set: (callback, ms) => setTimeout(callback, ms).unref(),
  clear: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/**
 * Runs the dispatcher every interval, one tick at a time (a slow tick delays
 * the next instead of overlapping it). Returns a stop function.
 */
export function startLocalSchedule(
  intervalMs: number | null,
  tick: () => Promise<unknown>,
  onError: (error: unknown) => void,
  timer: ScheduleTimer = realTimer,
): () => void {
  if (intervalMs === null) return () => {};
  let handle: unknown;
  let stopped = false;
  const schedule = () => {
    handle = timer.set(async () => {
      try {
        await tick();
      } catch (error) {
        onError(error);
      }
      if (!stopped) schedule();
    }, intervalMs);
  };
  schedule();
  return () => {
    stopped = true;
    timer.clear(handle);
  };
}

/** SCHEDULE as parsed (ms, or null for off) back to the interval the owner reads on each connection: `1h`, `15m`, `off`. */
export function scheduleLabel(intervalMs: number | null): string {
  if (intervalMs === null) return "off";
  const [unit, ms] = ([["h", 3_600_000], ["m", 60_000]] as const).find(([, size]) => intervalMs % size === 0) ?? ["s", 1_000];
  return `${intervalMs / ms}${unit}`;
}
