/** The time, injected: tests drive it (test/support/manual-clock.ts, virtual-clock.ts) instead of waiting on it. */
export interface Clock {
  now(): Date;
}
