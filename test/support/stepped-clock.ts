import type { Clock } from "../../lambdas/domain/core/ports/clock";

/**
 * The domain's clock for tests on a live source: 1 ms further at each reading,
 * so times stay ordered whatever the machine's speed, and moved forward only
 * by the test (`moveTo`). Nothing waits on it.
 */
export class SteppedClock implements Clock {
  constructor(private t: number) {}

  now(): Date {
    this.t += 1;
    return new Date(this.t);
  }

  /** The time of the last reading (reading it moves nothing). */
  get lastReading(): number {
    return this.t;
  }

  /** Forward to `ms`, never back. */
  moveTo(ms: number): void {
    this.t = Math.max(this.t, ms);
  }
}
