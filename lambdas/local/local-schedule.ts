import * as v from "valibot";

/** SCHEDULE: `off`, or an interval such as `30s`, `15m`, `1h`. The AWS schedule's default (see lib/) is the same 1h. */
export const DEFAULT_SCHEDULE = "1h";

const UNIT_MS = { s: 1_000, m: 60_000, h: 3_600_000 } as const;

export const ScheduleSchema = v.pipe(
  v.string(),
  v.trim(),
  v.toLowerCase(),
  v.regex(/^(off|\d+[smh])$/, "SCHEDULE must be `off` or an interval like 30s, 15m, 1h"),
  v.transform((text) => (text === "off" ? null : Number(text.slice(0, -1)) * UNIT_MS[text.slice(-1) as keyof typeof UNIT_MS])),
  v.check((ms) => ms === null || ms >= 1_000, "SCHEDULE must be at least 1s"),
);

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
