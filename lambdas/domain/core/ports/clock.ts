import { setTimeout as timerSleep } from "node:timers/promises";

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

/** The wall clock: the default wherever a Clock is not injected. */
export const systemClock: Clock = { now: () => new Date() };

/** Real-time waiting: the default wherever a Sleep is not injected. */
export const realSleep: Sleep = (ms) => timerSleep(ms).then(() => undefined);
