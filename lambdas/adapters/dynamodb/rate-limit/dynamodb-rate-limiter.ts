import { ConditionalCheckFailedException, GetItemCommand, PutItemCommand, type AttributeValue } from "@aws-sdk/client-dynamodb";
import { DynamoDbTableAdapter, type DynamoDbTableOptions } from "../table/dynamodb-table-adapter";
import { RateLimitSlotsStaleError } from "../../../domain/core/errors";
import { MAX_STALE_SLOTS, SLOT_LATE_MS } from "../../../domain/core/limits";
import type { Clock, Sleep } from "../../../domain/core/ports/clock";
import { realSleep, systemClock } from "../../../domain/core/ports/clock";
import type { RateLimiter } from "../../../domain/core/ports/rate-limiter";
import { RATE_ATTR, rateLimitPartitionKey, rateLimitSortKey } from "./rate-limit-keys";

/**
 * Margin added to the one-second window. A request reaches the source a little
 * after its slot is recorded (the conditional write has to come back, then the
 * HTTP request is sent), and timers fire late, so two requests N slots apart
 * can be closer together at the source than their recorded starts. Holding
 * each slot for 1000 + 20 ms keeps every one-second window at or under the rate
 * as the SOURCE sees it as long as a request reaches the source within 20 ms of
 * its recorded start: at most SLOT_LATE_MS (10 ms) before it is handed to the
 * HTTP client (else a fresh slot is taken), the rest for sending on a kept-alive
 * connection. It costs 2% of the rate (1000/1020). `npm run bench` measures the
 * busiest window at the source; a process's very first request, which also
 * opens the connection, is the case the margin covers least (docs/run-safety.md).
 */
export const RATE_WINDOW_MARGIN_MS = 20;
/** How long an admitted request holds its slot. */
export const RATE_WINDOW_MS = 1000 + RATE_WINDOW_MARGIN_MS;
/** Connections whose last written log a process remembers (so that its next slot needs no read). */
export const REMEMBERED_LOGS = 1000;
/**
 * The log's `expires_at` (epoch seconds, the table's TTL attribute) is this
 * long after its newest start: the log only matters for one window, so an idle
 * or deleted connection's item is dropped by DynamoDB a day or so later, and a
 * dropped log just reads as empty (no slot is in the window).
 */
export const RATE_LOG_RETENTION_SECONDS = 86_400;
/** The table's TTL attribute (lib/record-table.ts TTL_ATTRIBUTE). */
const EXPIRES_AT_ATTR = "expires_at";
/**
 * A slot is taken before its write and is only good for SLOT_LATE_MS after it,
 * so a store slower than that (DynamoDB under load, a throttled table) would
 * make every slot stale and re-stamp it for ever. Once a process has timed
 * this many of its writes, it records each slot as far ahead as its fast writes
 * take (the WRITE_LEAD_QUANTILE of the recent ones, at most MAX_WRITE_LEAD_MS):
 * the write is then usually back before the slot starts, and the request waits
 * for the rest (a slot is never used before its start).
 */
export const WRITE_LATENCY_SAMPLES = 8;
/**
 * The median: a write slower than the lead by more than SLOT_LATE_MS costs a
 * whole second write (its slots are re-stamped), while one faster than the lead
 * only waits out the rest, mostly hidden behind the connection read the page
 * task makes at the same time. With the fastest write as the lead, most slots
 * on a busy store were re-stamped (192 of 242 pages, `npm run bench -- --only product`).
 */
export const WRITE_LEAD_QUANTILE = 0.5;
export const MAX_WRITE_LEAD_MS = 250;
/**
 * The log keeps only the starts of the last two windows: a start older than
 * that decides nothing for a caller whose clock is less than a window behind
 * the writer's (callers' clocks are NTP-synced, milliseconds apart). So the
 * item holds the requests of the last two seconds, not `limit` starts: at a
 * rate_limit of 1,000 and a page every 100 ms it is about 20 numbers, not a
 * thousand (one write capacity unit per write instead of about nine).
 */
export const LOG_KEPT_WINDOWS = 2;
/** Upper bound of the random pause before retrying after losing a write race. */
export const CONFLICT_JITTER_MAX_MS = 5;

export interface DynamoDbRateLimiterOptions extends DynamoDbTableOptions {
  /** Real time by default: the rate is the source's, never scaled by TIME_SCALE. */
  readonly clock?: Clock;
  /** Real-time sleep by default. */
  readonly sleep?: Sleep;
}

/** Slots this process recorded at `at` and has not used (their write came back late). */
export interface StaleSlots {
  readonly at: number;
  readonly count: number;
}

/** What one look at the log decides: admit `count` requests with this new log, or wait this long and look again. */
export type AcquirePlan =
  | { readonly admit: true; readonly count: number; readonly starts: readonly number[] }
  | { readonly admit: false; readonly waitMs: number };

/**
 * The sliding-window rule on a log of start times (pure; exported for tests).
 * Only the newest `limit` entries count (a lowered rate drops the oldest), and
 * the new log drops starts older than LOG_KEPT_WINDOWS windows.
 * With k < `limit` of them inside (now - windowMs, now], up to `limit - k` of
 * the `wanted` requests are admitted and `now` is appended once for each;
 * otherwise the wait lasts until the oldest one leaves the window.
 *
 * `restamp`: this caller's unused slots, taken out of the log before the rule
 * is applied, so that they are replaced by the new ones. Safe because every
 * other start was admitted against a log that held them (or more) and no
 * request ever started on them.
 */
export function planAcquire(
  stored: readonly number[],
  limit: number,
  now: number,
  wanted = 1,
  windowMs: number = RATE_WINDOW_MS,
  restamp: StaleSlots | null = null,
): AcquirePlan {
  const kept = withoutStale(stored, restamp)
    .sort((a, b) => a - b)
    .slice(-limit);
  const inWindow = kept.filter((start) => start > now - windowMs).length;
  const count = Math.min(wanted, limit - inWindow);
  if (count > 0) {
    const added: number[] = Array.from({ length: count }, () => now);
    const oldestKept = now - LOG_KEPT_WINDOWS * windowMs;
    const starts = [...kept.filter((start) => start > oldestKept), ...added].sort((a, b) => a - b).slice(-limit);
    return { admit: true, count, starts };
  }
  // kept is full and all of it is in the window, so kept[0] > now - windowMs and the wait is > 0.
  // Capped at one window: an entry from a clock that ran ahead cannot park a caller for longer than that.
  const oldest = kept[0] ?? now;
  return { admit: false, waitMs: Math.min(oldest + windowMs - now, windowMs) };
}

/** `stored` without up to `stale.count` entries equal to `stale.at` (entries are plain times: any equal one will do). */
function withoutStale(stored: readonly number[], stale: StaleSlots | null): number[] {
  const rest = [...stored];
  if (stale === null) return rest;
  for (let removed = 0; removed < stale.count; removed += 1) {
    const index = rest.indexOf(stale.at);
    if (index < 0) break;
    rest.splice(index, 1);
  }
  return rest;
}

interface Waiter {
  readonly requestsPerSecond: number;
  /** This caller's own slot that went stale unused (its start): the new slot takes its place in the log. */
  readonly replacing: number | null;
  readonly resolve: (slot: number) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * RateLimiter shared by every process calling a connection's source (sync page
 * Lambdas, the onboarding test call): a sliding-window log in one DynamoDB item
 * per connection (pk RATE#<connectionId>, sk RATE) holding the start times of
 * the last N = requestsPerSecond admitted requests (those of the last
 * LOG_KEPT_WINDOWS windows) and a version.
 *
 * Taking slots: consistent read (skipped when this process wrote the log last:
 * it remembers what it wrote); if the window has room, append now with a
 * write conditioned on the version read (optimistic concurrency); if it is
 * full, sleep until the oldest start leaves the window and try again; a lost
 * race is retried at once (fresh read), after a small random jitter. A write
 * that comes back late re-stamps its slots before they are used.
 *
 * Inside one process the callers of a connection queue up (FIFO) behind one
 * loop that takes as many slots per write as are free and waiting, so only
 * processes, not every waiting call, race for the item: no thundering herd
 * when a slot frees, and a process is not held to one slot per round trip.
 *
 * Times are epoch ms from every caller's own clock (NTP-synced on Lambda); the
 * window margin also absorbs small skew. DynamoDB errors other than a lost race
 * (busy ones as StoreUnavailableError, DynamoDbTableAdapter) reach every call
 * queued at that moment.
 */
export class DynamoDbRateLimiter extends DynamoDbTableAdapter implements RateLimiter {
  /** Epoch ms. */
  private readonly now: () => number;
  private readonly sleep: Sleep;
  /** connection id -> calls of this process waiting for a slot, oldest first; present while its loop runs. */
  private readonly queues = new Map<string, Waiter[]>();
  /** This process's last WRITE_LATENCY_SAMPLES log writes (ms, from before the write to its answer), oldest first. */
  private readonly writeLatencies: number[] = [];
  /** Partition key -> the log as this process last wrote it (most recent last; at most REMEMBERED_LOGS). */
  private readonly lastWritten = new Map<string, { version: number | null; starts: readonly number[] }>();

  constructor(options: DynamoDbRateLimiterOptions) {
    super(options);
    const clock = options.clock ?? systemClock;
    this.now = () => clock.now().getTime();
    this.sleep = options.sleep ?? realSleep;
  }

  async acquire(connectionId: string, requestsPerSecond: number, options: { readonly replacing?: number } = {}): Promise<number> {
    if (!Number.isInteger(requestsPerSecond) || requestsPerSecond < 1) {
      throw new RangeError(`requestsPerSecond must be an integer >= 1; got ${requestsPerSecond}`);
    }
    const key: Record<string, AttributeValue> = {
      [RATE_ATTR.pk]: { S: rateLimitPartitionKey(connectionId) },
      [RATE_ATTR.sk]: { S: rateLimitSortKey() },
    };
    return new Promise<number>((resolve, reject) => {
      const waiter: Waiter = { requestsPerSecond, replacing: options.replacing ?? null, resolve, reject };
      const queue = this.queues.get(connectionId);
      if (queue !== undefined) {
        queue.push(waiter);
        return;
      }
      const fresh = [waiter];
      this.queues.set(connectionId, fresh);
      void this.drain(connectionId, key, fresh);
    });
  }

  /** Admits the queue's calls in order until it is empty. */
  private async drain(connectionId: string, key: Record<string, AttributeValue>, queue: Waiter[]): Promise<void> {
    let stale: StaleSlots | null = null;
    let lateInARow = 0;
    try {
      while (queue.length > 0) {
        // Calls made before and after a rate change may wait together: the lower rate holds for both.
        const limit = Math.min(...queue.map((waiter) => waiter.requestsPerSecond));
        // One write admits the head and the calls right behind it; a call replacing its own stale slot
        // goes alone: its write takes that slot out of the log.
        const { replacing } = queue[0]!;
        const batch = () => {
          if (replacing !== null) return 1;
          const other = queue.findIndex((waiter) => waiter.replacing !== null);
          return other < 0 ? queue.length : other;
        };
        // The count is read at each attempt: calls that join while a read is in flight share its write.
        const replaced = stale ?? (replacing === null ? null : { at: replacing, count: 1 });
        const taken = await this.takeSlots(key, limit, batch, replaced);
        if (taken.late) {
          // Bounded: a store slower than any write lead would re-stamp for ever (the Task's Retry takes it from there).
          if ((lateInARow += 1) >= MAX_STALE_SLOTS) {
            throw new RateLimitSlotsStaleError(
              `${MAX_STALE_SLOTS} rate-limit slots in a row came back from the store more than ${SLOT_LATE_MS} ms late (the store is overloaded); retried`,
            );
          }
          stale = { at: taken.at, count: taken.count };
          continue;
        }
        lateInARow = 0;
        stale = null;
        for (const waiter of queue.splice(0, taken.count)) waiter.resolve(taken.at);
      }
    } catch (error) {
      for (const waiter of queue.splice(0)) waiter.reject(error);
    } finally {
      // No await since the queue was last seen empty: nobody can have joined it in between.
      this.queues.delete(connectionId);
    }
  }

  /**
   * Takes between 1 and `wanted()` slots (replacing `stale` ones), waiting as
   * long as the window is full. `late`: the write came back too long after `at`
   * for the slots to be used; they are re-stamped on the next call.
   */
  private async takeSlots(
    key: Record<string, AttributeValue>,
    limit: number,
    wanted: () => number,
    stale: StaleSlots | null,
  ): Promise<{ count: number; at: number; late: boolean }> {
    const id = key[RATE_ATTR.pk]?.S ?? "";
    for (;;) {
      // The log this process wrote last is used without a read: the write below is conditioned on its
      // version, so a log someone else changed since just loses the race and is read then.
      let known = this.lastWritten.get(id);
      if (known === undefined) {
        const out = await this.client.send(new GetItemCommand({ TableName: this.tableName, Key: key, ConsistentRead: true }));
        known = { version: readVersion(out.Item), starts: readStarts(out.Item) };
      }
      const { version, starts: stored } = known;
      // Waiting for the oldest start to leave the window needs no fresh read: the write is conditioned
      // on the version, so a log that changed meanwhile just loses the race and is read again. The slot
      // time is taken right before the write, so the drift per window is only the timer's lateness.
      for (;;) {
        // A slot is recorded as far ahead as this process's writes take (see WRITE_LATENCY_SAMPLES); the window
        // rule is applied at that start (planAcquire counts every start after at - window, later ones included,
        // so no window around it overflows).
        const started = this.now();
        const at = started + this.writeLeadMs();
        const plan = planAcquire(stored, limit, at, wanted(), RATE_WINDOW_MS, stale);
        if (!plan.admit) {
          await this.sleep(plan.waitMs);
          continue;
        }
        if (!(await this.tryWrite(key, version, plan.starts))) break;
        const answered = this.now();
        this.timeWrite(answered - started);
        this.remember(id, { version: (version ?? 0) + 1, starts: plan.starts });
        return { count: plan.count, at, late: answered - at > SLOT_LATE_MS };
      }
      this.lastWritten.delete(id);
      await this.sleep(Math.random() * CONFLICT_JITTER_MAX_MS);
    }
  }

  private timeWrite(ms: number): void {
    this.writeLatencies.push(ms);
    if (this.writeLatencies.length > WRITE_LATENCY_SAMPLES) this.writeLatencies.shift();
  }

  /** 0 until WRITE_LATENCY_SAMPLES writes are timed; then the WRITE_LEAD_QUANTILE of them, at most MAX_WRITE_LEAD_MS. */
  private writeLeadMs(): number {
    if (this.writeLatencies.length < WRITE_LATENCY_SAMPLES) return 0;
    const sorted = [...this.writeLatencies].sort((a, b) => a - b);
    const low = sorted[Math.floor(WRITE_LEAD_QUANTILE * (sorted.length - 1))] ?? 0;
    return Math.min(MAX_WRITE_LEAD_MS, Math.max(0, low));
  }

  private remember(id: string, log: { version: number; starts: readonly number[] }): void {
    this.lastWritten.delete(id);
    this.lastWritten.set(id, log);
    if (this.lastWritten.size > REMEMBERED_LOGS) this.lastWritten.delete(this.lastWritten.keys().next().value as string);
  }

  /** Writes the new log if nobody wrote since `version` was read; false when someone did. */
  private async tryWrite(key: Record<string, AttributeValue>, version: number | null, starts: readonly number[]): Promise<boolean> {
    try {
      await this.client.send(
        new PutItemCommand({
          TableName: this.tableName,
          Item: {
            ...key,
            [RATE_ATTR.starts]: { L: starts.map((start) => ({ N: String(start) })) },
            [RATE_ATTR.version]: { N: String((version ?? 0) + 1) },
            [EXPIRES_AT_ATTR]: { N: String(logExpiresAt(starts)) },
          },
          ExpressionAttributeNames: { "#version": RATE_ATTR.version },
          // No version read (no item yet): only if still none, so two first writers cannot both win.
          ...(version === null
            ? { ConditionExpression: "attribute_not_exists(#version)" }
            : { ConditionExpression: "#version = :version", ExpressionAttributeValues: { ":version": { N: String(version) } } }),
        }),
      );
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  }
}

/** RATE_LOG_RETENTION_SECONDS after the newest start (starts are epoch ms; a log always holds at least one). */
function logExpiresAt(starts: readonly number[]): number {
  return Math.floor(Math.max(...starts) / 1000) + RATE_LOG_RETENTION_SECONDS;
}

function readVersion(item: Record<string, AttributeValue> | undefined): number | null {
  const raw = item?.[RATE_ATTR.version]?.N;
  return raw === undefined ? null : Number(raw);
}

function readStarts(item: Record<string, AttributeValue> | undefined): number[] {
  const list = item?.[RATE_ATTR.starts]?.L ?? [];
  return list.map((value) => Number(value.N)).filter((start) => Number.isFinite(start));
}
