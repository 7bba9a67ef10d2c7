import type { PreflightClock } from "../../lambdas/preflight/request-window";

/** A clock that moves only when slept on: waits cost no wall time and every wait is recorded. */
export class ManualClock implements PreflightClock {
  readonly sleeps: number[] = [];

  constructor(private time = 1_000_000) {}

  now(): number {
    return this.time;
  }

  async sleep(ms: number): Promise<void> {
    this.sleeps.push(ms);
    this.time += ms;
  }
}
