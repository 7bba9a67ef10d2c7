import type { Clock } from "../../lambdas/domain/core/ports/clock";

/**
 * A clock that moves only when slept on: waits cost no wall time and every
 * wait is recorded. Pass it as the clock and its `sleep` as the sleep.
 */
export class ManualClock implements Clock {
  readonly sleeps: number[] = [];

  constructor(private time = 1_000_000) {}

  now(): Date {
    return new Date(this.time);
  }

  readonly sleep = async (ms: number): Promise<void> => {
    this.sleeps.push(ms);
    this.time += ms;
  };
}

/** A fresh ManualClock as the `clock` and `sleep` options of the code under test. */
export function manualTime(start?: number): { readonly clock: ManualClock; readonly sleep: ManualClock["sleep"] } {
  const clock = new ManualClock(start);
  return { clock, sleep: clock.sleep };
}
