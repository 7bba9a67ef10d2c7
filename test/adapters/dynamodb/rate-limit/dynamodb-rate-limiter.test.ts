import { randomUUID } from "node:crypto";
import { GetItemCommand, PutItemCommand, type DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { afterAll, describe, expect, test } from "vitest";
import type { Clock } from "../../../../lambdas/domain/core/ports/clock";
import type { SourceClient, SourceConnection } from "../../../../lambdas/domain/core/ports/source-client";
import { DynamoDbRateLimiter, LOG_KEPT_WINDOWS, MAX_WRITE_LEAD_MS, RATE_WINDOW_MS, WRITE_LATENCY_SAMPLES, planAcquire } from "../../../../lambdas/adapters/dynamodb/rate-limit/dynamodb-rate-limiter";
import { MAX_STALE_SLOTS, SLOT_LATE_MS } from "../../../../lambdas/domain/core/limits";
import { RateLimitSlotsStaleError } from "../../../../lambdas/domain/core/errors";
import { RATE_ATTR, rateLimitPartitionKey, rateLimitSortKey } from "../../../../lambdas/adapters/dynamodb/rate-limit/rate-limit-keys";
import { rateLimited } from "../../../../lambdas/domain/sync/rate-limited-source-client";
import { createHttpSourceClient } from "../../../../lambdas/adapters/source-http/http-source-client";
import { envelope, type SourceServer } from "../../../support/source-server";
import { useSourceServers } from "../../../support/source-servers";
import { testDynamoDbClient, useTestTable } from "../../../support/dynamodb";
import { VirtualClock } from "../../../support/virtual-clock";
import { gate } from "../../../support/gate";

const ONE_SECOND_MS = 1000;

const table = useTestTable();
const extraClients: DynamoDBClient[] = [];
const serve = useSourceServers();

afterAll(() => {
  for (const extra of extraClients) extra.destroy();
});

const newConnection = () => `conn-${randomUUID()}`;
const range = (n: number) => Array.from({ length: n }, (_, i) => i);

async function sourceServer(): Promise<SourceServer> {
  return serve(() => ({ json: envelope([]) }));
}

/**
 * Several processes (page Lambdas, the onboarding test call) calling one
 * source through the limiter, on one virtual clock: each has its own limiter
 * and DynamoDB client on the shared table. Every request that reaches the
 * source is recorded with the virtual time it was sent at (time stands still
 * while it is in flight), so the window rule is checked on exact times and no
 * assertion depends on how fast the machine is.
 */
function virtualWorld() {
  const clock = new VirtualClock();
  const sent: { readonly at: number; readonly token: string; readonly page: number }[] = [];
  const http = createHttpSourceClient();
  const source: SourceClient = {
    fetchPage: (connection, request) =>
      clock.busy(() => {
        sent.push({ at: clock.now().getTime(), token: connection.token, page: request.page });
        return http.fetchPage(connection, request);
      }),
  };
  const processLimiter = (): DynamoDbRateLimiter => {
    const own = testDynamoDbClient();
    extraClients.push(own);
    return new DynamoDbRateLimiter({ client: clock.holdDuring(own), tableName: table.tableName, clock, sleep: clock.sleep });
  };
  /** A caller in its own process, rate-limited for `connectionId`. */
  const caller = (connectionId: string, rate: number): SourceClient =>
    rateLimited(source, processLimiter(), { connectionId, rateLimit: rate }, clock);
  return { clock, sent, caller };
}

/** The most of `times` inside any one-second window [t, t + 1000 ms). */
function maxInAnyOneSecondWindow(times: readonly number[]): number {
  const sorted = [...times].sort((a, b) => a - b);
  let max = 0;
  for (let i = 0; i < sorted.length; i += 1) {
    let count = 0;
    for (let j = i; j < sorted.length && (sorted[j] as number) - (sorted[i] as number) < ONE_SECOND_MS; j += 1) count += 1;
    max = Math.max(max, count);
  }
  return max;
}

/** Send times relative to `origin`, for failure messages. */
const timeline = (times: readonly number[], origin: number) => [...times].sort((a, b) => a - b).map((t) => t - origin).join(" ");

/** `count` pages fetched concurrently through `source`. */
function fetchPages(source: SourceClient, connection: SourceConnection, count: number): Promise<unknown[]> {
  return Promise.all(range(count).map((i) => source.fetchPage(connection, { path: "/leads", page: i + 1 })));
}

describe("DynamoDbRateLimiter against a real source, on a virtual clock (DynamoDB Local, loopback HTTP)", () => {
  test("rate limit: never more than rate_limit requests in any one-second window across several callers", async () => {
    const rate = 5;
    const server = await sourceServer();
    const { clock, sent, caller } = virtualWorld();
    const origin = clock.now().getTime();
    const connectionId = newConnection();
    const connection = { baseUrl: server.baseUrl, token: "token-a" };
    // Three callers (separate page Lambdas / the onboarding test call), 5 concurrent requests each.
    const callers = range(3).map(() => caller(connectionId, rate));

    await Promise.all(callers.map((each) => fetchPages(each, connection, 5)));

    expect(server.requests).toHaveLength(15);
    expect(sent).toHaveLength(15);
    const times = sent.map((request) => request.at);
    expect(maxInAnyOneSecondWindow(times), timeline(times, origin)).toBeLessThanOrEqual(rate);
  });

  test("rate limit: every slot is used as soon as it opens while requests are waiting, in the order they were made", async () => {
    const rate = 10;
    const n = 2 * rate + 1;
    const server = await sourceServer();
    const { clock, sent, caller } = virtualWorld();
    const t0 = clock.now().getTime();

    await fetchPages(caller(newConnection(), rate), { baseUrl: server.baseUrl, token: "token-a" }, n);

    expect(server.requests).toHaveLength(n);
    // A full window at once, the next full one the moment the first leaves it, then the last request:
    // no slot left unused (the throughput rule, by counts; the measured rate is in `npm run bench`).
    const expected = [...range(rate).map(() => t0), ...range(rate).map(() => t0 + RATE_WINDOW_MS), t0 + 2 * RATE_WINDOW_MS];
    expect(sent.map((request) => request.at), timeline(sent.map((request) => request.at), t0)).toEqual(expected);
    // One process's callers are served first come, first served.
    expect(sent.map((request) => request.page)).toEqual(range(n).map((i) => i + 1));
    expect(server.requests.map((request) => request.query["page"])).toEqual(range(n).map((i) => String(i + 1)));
  });

  test("rate limit: two connections to the same base URL are throttled independently", async () => {
    const rate = 2;
    const server = await sourceServer();
    const { clock, sent, caller } = virtualWorld();
    const t0 = clock.now().getTime();
    const a = { connectionId: newConnection(), token: "token-a" };
    const b = { connectionId: newConnection(), token: "token-b" };

    await Promise.all([
      fetchPages(caller(a.connectionId, rate), { baseUrl: server.baseUrl, token: a.token }, 4),
      fetchPages(caller(b.connectionId, rate), { baseUrl: server.baseUrl, token: b.token }, 4),
    ]);

    const of = (c: typeof a) => sent.filter((request) => request.token === c.token).map((request) => request.at);
    expect(server.requests).toHaveLength(8);
    // Each connection keeps to its own rate, and neither waits for the other: both fill the first
    // window at once, where one shared limit of 2/s would have pushed four of the eight two windows on.
    for (const c of [a, b]) expect(of(c), c.token).toEqual([t0, t0, t0 + RATE_WINDOW_MS, t0 + RATE_WINDOW_MS]);
    expect(maxInAnyOneSecondWindow(sent.map((request) => request.at))).toBe(2 * rate);
  });
});

describe("DynamoDbRateLimiter on a fake clock (DynamoDB Local)", () => {
  /** A limiter whose clock only moves when it sleeps. */
  function fakeClockLimiter(start = 1_000_000) {
    const clock = { t: start, sleeps: [] as number[] };
    const limiter = new DynamoDbRateLimiter({
      client: table.client,
      tableName: table.tableName,
      clock: { now: () => new Date(clock.t) },
      sleep: async (ms) => {
        clock.sleeps.push(ms);
        clock.t += ms;
      },
    });
    return { clock, limiter };
  }

  async function storedStarts(connectionId: string): Promise<number[]> {
    const out = await table.client.send(
      new GetItemCommand({
        TableName: table.tableName,
        Key: { pk: { S: rateLimitPartitionKey(connectionId) }, sk: { S: rateLimitSortKey() } },
        ConsistentRead: true,
      }),
    );
    return (out.Item?.[RATE_ATTR.starts]?.L ?? []).map((value) => Number(value.N));
  }

  test("rate limit: a lowered rate is honoured at once (only the newest entries count)", async () => {
    const { clock, limiter } = fakeClockLimiter();
    const connectionId = newConnection();
    const t0 = clock.t;
    for (const offset of [0, 10, 20, 30, 40]) {
      clock.t = t0 + offset;
      await limiter.acquire(connectionId, 5);
    }
    expect(clock.sleeps).toEqual([]);

    clock.t = t0 + 50;
    await limiter.acquire(connectionId, 2);
    // The newest two are t0+30 and t0+40: the slot opens when t0+30 leaves the window.
    expect(clock.sleeps).toEqual([t0 + 30 + RATE_WINDOW_MS - (t0 + 50)]);
    expect(await storedStarts(connectionId)).toEqual([t0 + 40, t0 + 30 + RATE_WINDOW_MS]);
  });

  test("rate limit: the stored log keeps the starts of the last two windows only, not rate_limit of them, and still holds the rate", async () => {
    const { clock, limiter } = fakeClockLimiter();
    const connectionId = newConnection();
    const t0 = clock.t;
    // rate_limit 100, one request every 300 ms for 3 s: the log never needs more than the last two windows' starts.
    for (let i = 0; i < 10; i += 1) {
      clock.t = t0 + i * 300;
      await limiter.acquire(connectionId, 100);
    }
    const last = t0 + 9 * 300;
    expect(await storedStarts(connectionId)).toEqual(range(10).map((i) => t0 + i * 300).filter((start) => start > last - LOG_KEPT_WINDOWS * RATE_WINDOW_MS));
    expect(await storedStarts(connectionId)).toHaveLength(7);
    expect(clock.sleeps).toEqual([]);

    // A burst up to the rate right after: the window still counts every start in it (4 recent ones + 96 new).
    clock.t = last + 1;
    await Promise.all(range(96).map(() => limiter.acquire(connectionId, 100)));
    expect(clock.sleeps).toEqual([]);
    await limiter.acquire(connectionId, 100);
    // The 101st waits until the oldest start of the window, t0 + 1800, leaves it.
    expect(clock.sleeps).toEqual([t0 + 1_800 + RATE_WINDOW_MS - (last + 1)]);
  });

  test("rate limit: a raised rate is honoured at once", async () => {
    const { clock, limiter } = fakeClockLimiter();
    const connectionId = newConnection();
    await limiter.acquire(connectionId, 2);
    await limiter.acquire(connectionId, 2);
    await limiter.acquire(connectionId, 4);
    await limiter.acquire(connectionId, 4);
    expect(clock.sleeps).toEqual([]);

    await limiter.acquire(connectionId, 4);
    expect(clock.sleeps).toEqual([RATE_WINDOW_MS]);
    expect(await storedStarts(connectionId)).toHaveLength(4);
  });

  test("rate limit: concurrent callers lose no slot and take no extra one (optimistic concurrency)", async () => {
    const connectionId = newConnection();
    const t = 5_000_000;
    // Several processes at the same instant; their sleeps (the conflict jitter) do not move the clock.
    const limiters = range(4).map(() => new DynamoDbRateLimiter({ client: table.client, tableName: table.tableName, clock: { now: () => new Date(t) }, sleep: async () => {} }));
    await Promise.all(range(8).map((i) => (limiters[i % 4] as DynamoDbRateLimiter).acquire(connectionId, 8)));
    expect(await storedStarts(connectionId)).toEqual(range(8).map(() => t));

    const { clock, limiter } = fakeClockLimiter(t);
    await limiter.acquire(connectionId, 8);
    expect(clock.sleeps).toEqual([RATE_WINDOW_MS]);
  });

  test("rate limit: a slot whose write comes back late is re-stamped before its request may start", async () => {
    const connectionId = newConnection();
    const t = 7_000_000;
    // now() per attempt: once before the write, once after. The first write comes back 100 ms late.
    const clock = [t, t + 100, t + 100, t + 100];
    const limiter = new DynamoDbRateLimiter({ client: table.client, tableName: table.tableName, clock: { now: () => new Date(clock.shift() ?? t + 100) }, sleep: async () => {} });

    await limiter.acquire(connectionId, 1);

    // The late slot (t) was replaced by the fresh one (t + 100): not used, not lost, and no wait for it.
    expect(await storedStarts(connectionId)).toEqual([t + 100]);
    expect(clock).toEqual([]);
  });

  test("rate limit: a stale slot is replaced, not added to: the fresh slot takes its place in the window, so no slot of it is lost", async () => {
    const { clock, limiter } = fakeClockLimiter();
    const connectionId = newConnection();
    const t0 = clock.t;
    expect(await limiter.acquire(connectionId, 2)).toBe(t0);
    clock.t = t0 + 100;
    const unused = await limiter.acquire(connectionId, 2);
    expect(unused).toBe(t0 + 100);
    // That slot's request could not leave in time (100 ms later): the window is full, but the
    // stale slot gives its place to the fresh one at once instead of waiting for t0 + RATE_WINDOW_MS.
    clock.t = t0 + 200;
    expect(await limiter.acquire(connectionId, 2, { replacing: unused })).toBe(t0 + 200);
    expect(clock.sleeps).toEqual([]);
    expect(await storedStarts(connectionId)).toEqual([t0, t0 + 200]);
  });

  test("no one-second window above the rate: a slot recorded ahead whose wait ends late is replaced before its request leaves, so another caller's slots and it never make rate_limit + 1 in a second", async () => {
    const rate = 5;
    const timerLateMs = 50;
    const connectionId = newConnection();
    const connection = { baseUrl: "http://127.0.0.1:1", token: "token-a" };
    // One clock for two processes: the sync (A) and another caller of the connection (B, e.g. the test call).
    const clock = { t: 9_000_000 };
    const shared: Clock = { now: () => new Date(clock.t) };
    const sent: { readonly at: number; readonly by: string }[] = [];
    const sourceOf = (by: string): SourceClient => ({
      async fetchPage() {
        sent.push({ at: clock.t, by });
        return { data: [], hasMore: false };
      },
    });
    // A's last writes took 100 ms each (on other connections), so it records its slots 100 ms ahead (its
    // write lead); its next write is fast. B's limiter waits for a full window by moving the clock; A's
    // client waits for its slot on a gate.
    let writeMs = 100;
    const limiterA = slowStoreLimiter(clock, () => writeMs).limiter;
    for (const _ of range(WRITE_LATENCY_SAMPLES)) await limiterA.acquire(newConnection(), rate);
    writeMs = 0;
    const t0 = clock.t;
    const limiterB = new DynamoDbRateLimiter({ client: table.client, tableName: table.tableName, clock: shared, sleep: async (ms) => void (clock.t += ms) });
    const asleep = gate<number>();
    const wake = gate();
    // A's first wait is held at a gate; any later one (its fresh slot, recorded ahead by its write lead) moves the clock.
    let waits = 0;
    const a = rateLimited(sourceOf("A"), limiterA, { connectionId, rateLimit: rate }, shared, undefined, async (ms) => {
      if ((waits += 1) > 1) return void (clock.t += ms);
      asleep.open(ms);
      return wake.opened;
    });
    const b = rateLimited(sourceOf("B"), limiterB, { connectionId, rateLimit: rate }, shared);

    // A's request waits for its slot, recorded 100 ms ahead (at t0 + 100).
    const aSent = a.fetchPage(connection, { path: "/leads", page: 2 });
    expect(await asleep.opened).toBe(100);
    // At t0 + 100, B takes the rest of the window: four slots.
    clock.t = t0 + 100;
    await Promise.all(range(rate - 1).map((i) => b.fetchPage(connection, { path: "/leads", page: i + 1 })));
    // A's timer fires late (a busy event loop): its slot is 50 ms old, more than a slot is good for.
    clock.t = t0 + 100 + timerLateMs;
    wake.open();
    await aSent;
    // B goes on: rate_limit more requests, each as soon as the limiter lets it.
    await Promise.all(range(rate).map((i) => b.fetchPage(connection, { path: "/leads", page: rate + i })));

    const times = sent.map((request) => request.at);
    expect(sent).toHaveLength(2 * rate);
    expect(maxInAnyOneSecondWindow(times), timeline(times, t0)).toBeLessThanOrEqual(rate);
  });

  test("rate limit: a store slower than SLOT_LATE_MS does not make every slot stale: the process records its slots as far ahead as its writes take, and a bounded number of writes admits the request", async () => {
    const connectionId = newConnection();
    const clock = { t: 11_000_000 };
    const slow = slowStoreLimiter(clock, 3 * SLOT_LATE_MS);
    const limiter = slow.limiter;

    for (let request = 0; request < 20; request += 1) {
      const writesBefore = slow.writes();
      const slot = await limiter.acquire(connectionId, 1000);
      // The slot is usable when the write is back: not more than SLOT_LATE_MS behind the clock.
      expect(clock.t - slot).toBeLessThanOrEqual(SLOT_LATE_MS);
      if (request >= WRITE_LATENCY_SAMPLES) expect(slow.writes() - writesBefore, `request ${request}`).toBe(1);
    }
    expect(slow.writes()).toBeLessThanOrEqual(2 * WRITE_LATENCY_SAMPLES + 20);
  });

  test("rate limit: the write lead is the median of the process's last writes, not the fastest: a store whose writes are mostly slow gets its slot recorded that far ahead, so a typical write is not re-stamped", async () => {
    const connectionId = newConnection();
    const clock = { t: 11_500_000 };
    // Eight timed writes, none late: three fast (0 ms), five slow (9 ms, within SLOT_LATE_MS of their slot). Then 19 ms each.
    let write = 0;
    const slow = slowStoreLimiter(clock, () => ((write += 1) <= 3 ? 0 : write <= WRITE_LATENCY_SAMPLES ? 9 : 19));
    for (const _ of range(WRITE_LATENCY_SAMPLES)) await slow.limiter.acquire(connectionId, 1000);
    expect(slow.writes()).toBe(WRITE_LATENCY_SAMPLES);

    const asked = clock.t;
    const slot = await slow.limiter.acquire(connectionId, 1000);
    // The median of [0, 0, 0, 9, 9, 9, 9, 9] is 9: the slot starts 9 ms ahead and the 19 ms write is back 10 ms after it,
    // not late. With the fastest write (0 ms) as the lead it would be 19 ms late and take a second write.
    expect(slot - asked).toBe(9);
    expect(slow.writes()).toBe(WRITE_LATENCY_SAMPLES + 1);
  });

  test("rate limit: re-stamping a late slot is bounded: a store slower than any lead fails the call with RateLimitSlotsStaleError (retried by the state machine) after MAX_STALE_SLOTS writes", async () => {
    const connectionId = newConnection();
    const clock = { t: 12_000_000 };
    const slow = slowStoreLimiter(clock, MAX_WRITE_LEAD_MS + 2 * SLOT_LATE_MS);
    const limiter = slow.limiter;

    await expect(limiter.acquire(connectionId, 5)).rejects.toBeInstanceOf(RateLimitSlotsStaleError);
    expect(slow.writes()).toBe(MAX_STALE_SLOTS);
  });

  test("rate limit: requestsPerSecond must be an integer >= 1", async () => {
    const { limiter } = fakeClockLimiter();
    await expect(limiter.acquire(newConnection(), 0)).rejects.toThrow(RangeError);
    await expect(limiter.acquire(newConnection(), 2.5)).rejects.toThrow(RangeError);
  });

  test("planAcquire: the window is (now - window, now] and only the newest `limit` entries count", () => {
    expect(planAcquire([], 1, 100, 1, 1000)).toEqual({ admit: true, count: 1, starts: [100] });
    expect(planAcquire([0], 1, 999, 1, 1000)).toEqual({ admit: false, waitMs: 1 });
    expect(planAcquire([0], 1, 1000, 1, 1000)).toEqual({ admit: true, count: 1, starts: [1000] });
    expect(planAcquire([5, 1, 3], 2, 10, 1, 1000)).toEqual({ admit: false, waitMs: 993 });
    expect(planAcquire([1, 2, 3], 4, 10, 1, 1000)).toEqual({ admit: true, count: 1, starts: [1, 2, 3, 10] });
    // Several waiting calls take every free slot in one write, never more.
    expect(planAcquire([1, 2], 4, 10, 5, 1000)).toEqual({ admit: true, count: 2, starts: [1, 2, 10, 10] });
    expect(planAcquire([1, 2], 4, 1001, 5, 1000)).toEqual({ admit: true, count: 3, starts: [2, 1001, 1001, 1001] });
    // The new log drops starts older than two windows (they decide nothing); the ones in the window always count.
    expect(planAcquire([0, 100, 1_500, 2_500], 100, 3_000, 1, 1000)).toEqual({ admit: true, count: 1, starts: [1_500, 2_500, 3_000] });
    // Re-stamping: this caller's unused slots leave the log and are replaced, never double-counted.
    expect(planAcquire([5, 7, 7], 3, 40, 2, 1000, { at: 7, count: 2 })).toEqual({ admit: true, count: 2, starts: [5, 40, 40] });
  });
});

/**
 * A limiter on the test table whose every write of the log takes writeMs on
 * the injected clock (the store under load); a runaway loop is cut short at
 * 100 writes, not left to hang.
 */
function slowStoreLimiter(clock: { t: number }, writeMs: number | (() => number)) {
  let writes = 0;
  const client = {
    send: async (command: unknown) => {
      if (command instanceof PutItemCommand) {
        writes += 1;
        if (writes > 100) throw new Error("100 writes for one slot: the limiter re-stamps for ever");
        clock.t += typeof writeMs === "number" ? writeMs : writeMs();
      }
      return table.client.send(command as PutItemCommand);
    },
  } as unknown as DynamoDBClient;
  const limiter = new DynamoDbRateLimiter({ client, tableName: table.tableName, clock: { now: () => new Date(clock.t) }, sleep: async (ms) => void (clock.t += ms) });
  return { limiter, writes: () => writes };
}
