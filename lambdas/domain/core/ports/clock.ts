/**
 * The time, injected: tests drive it (test/support/manual-clock.ts,
 * virtual-clock.ts) instead of waiting on it. The one shape of a clock: code
 * that needs epoch ms reads `now().getTime()`.
 */
export interface Clock {
  now(): Date;
}

/** Waits `ms`, injected next to a Clock wherever code waits: a test's clock moves instead of the wall clock. */
export type Sleep = (ms: number) => Promise<void>;
