import type { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import type { Clock } from "../../lambdas/domain/core/ports/clock";

/**
 * A clock for code that takes a `clock` and a `sleep` (the rate limiter),
 * shared by several callers that also do real I/O (DynamoDB Local,
 * a loopback source).
 *
 * Time stands still while any I/O registered with `busy` is in flight, and
 * moves only when every caller is asleep: then it jumps to the earliest
 * wake-up and wakes whoever was due. So what the limiter decides depends on
 * its rule and on the order of events, never on how fast the machine is; a
 * request sent at virtual time t was sent at t exactly.
 */
export class VirtualClock implements Clock {
  private t: number;
  private inFlight = 0;
  private sleepers: { readonly at: number; readonly wake: () => void }[] = [];
  private checkQueued = false;

  constructor(start = 1_000_000) {
    this.t = start;
  }

  readonly now = (): Date => new Date(this.t);

  readonly sleep = (ms: number): Promise<void> =>
    new Promise<void>((wake) => {
      this.sleepers.push({ at: this.t + Math.max(0, ms), wake });
      this.queueCheck();
    });

  /** Runs `work` as I/O during which time stands still. */
  async busy<T>(work: () => Promise<T>): Promise<T> {
    this.inFlight += 1;
    try {
      return await work();
    } finally {
      this.inFlight -= 1;
      this.queueCheck();
    }
  }

  /** The client, with every `send` counted as I/O (time stands still until it has answered). */
  holdDuring(client: DynamoDBClient): DynamoDBClient {
    const send = client.send.bind(client) as (command: unknown) => Promise<unknown>;
    (client as { send: unknown }).send = (command: unknown) => this.busy(() => send(command));
    return client;
  }

  /**
   * Looked at once the current burst of callbacks and microtasks has run (a
   * resolved slot reaches its HTTP request through microtasks only), so the
   * state seen is settled: every caller is in I/O, asleep, or done.
   */
  private queueCheck(): void {
    if (this.checkQueued) return;
    this.checkQueued = true;
    setImmediate(() => {
      this.checkQueued = false;
      this.advance();
    });
  }

  private advance(): void {
    if (this.inFlight > 0 || this.sleepers.length === 0) return;
    const next = Math.min(...this.sleepers.map((sleeper) => sleeper.at));
    this.t = Math.max(this.t, next);
    const due = this.sleepers.filter((sleeper) => sleeper.at <= this.t);
    this.sleepers = this.sleepers.filter((sleeper) => sleeper.at > this.t);
    for (const sleeper of due) sleeper.wake();
  }
}
