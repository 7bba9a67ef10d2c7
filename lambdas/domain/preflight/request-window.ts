import type { Clock, Sleep } from "../core/ports/clock";

const WINDOW_MS = 1000;

/**
 * A sliding one-second window: at most `rate` request starts in any second.
 * Requests start one at a time, so the starts are kept in order and only the
 * last `rate` matter.
 */
export class RequestWindow {
  private readonly starts: number[] = [];

  constructor(
    private readonly rate: number,
    private readonly clock: Clock,
    private readonly sleep: Sleep,
  ) {
    if (!Number.isInteger(rate) || rate < 1) throw new RangeError("rate must be a whole number >= 1");
  }

  /** Resolves when one more request may start, and records that start. */
  async acquire(): Promise<void> {
    for (;;) {
      const now = this.clock.now().getTime();
      const oldest = this.starts.length >= this.rate ? this.starts[this.starts.length - this.rate]! : undefined;
      if (oldest === undefined || now - oldest >= WINDOW_MS) break;
      await this.sleep(oldest + WINDOW_MS - now);
    }
    this.starts.push(this.clock.now().getTime());
    if (this.starts.length > this.rate) this.starts.splice(0, this.starts.length - this.rate);
  }
}
