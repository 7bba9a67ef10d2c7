import { randomUUID } from "node:crypto";
import { GetItemCommand, type DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import type { SourceClient, SourceConnection } from "../../lambdas/core/ports";
import { DynamoDbRateLimiter, RATE_WINDOW_MS, planAcquire } from "../../lambdas/rate-limit/dynamodb-rate-limiter";
import { RATE_ATTR, rateLimitPartitionKey, rateLimitSortKey } from "../../lambdas/rate-limit/rate-limit-keys";
import { rateLimited } from "../../lambdas/rate-limit/rate-limited-source-client";
import { createHttpSourceClient } from "../../lambdas/source/http-source-client";
import { envelope, startSourceServer, type RecordedRequest, type SourceServer } from "../support/source-server";
import { createTestTable, testDynamoDbClient } from "../support/dynamodb";

const ONE_SECOND_MS = 1000;

let client: DynamoDBClient;
let tableName: string;
const extraClients: DynamoDBClient[] = [];
const servers: SourceServer[] = [];

beforeAll(async () => {
  client = testDynamoDbClient();
  tableName = await createTestTable(client);
  // The test process's first fetch loads and compiles the HTTP stack (~100 ms here); paid once up front
  // so that it does not land between a slot and its request in the first test.
  const warmUp = await startSourceServer(() => ({ json: envelope([]) }));
  await createHttpSourceClient().fetchPage({ baseUrl: warmUp.baseUrl, token: "warm-up" }, { path: "/leads", page: 1 });
  await warmUp.close();
});

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

afterAll(() => {
  client?.destroy();
  for (const extra of extraClients) extra.destroy();
});

const newConnection = () => `conn-${randomUUID()}`;
const range = (n: number) => Array.from({ length: n }, (_, i) => i);

/** A limiter as another process would have it: its own object and its own DynamoDB client, on the shared table. */
function processLimiter(): DynamoDbRateLimiter {
  const own = testDynamoDbClient();
  extraClients.push(own);
  return new DynamoDbRateLimiter({ client: own, tableName });
}

async function sourceServer(): Promise<SourceServer> {
  const server = await startSourceServer(() => ({ json: envelope([]) }));
  servers.push(server);
  return server;
}

/** The most requests the source received inside any one-second window [t, t + 1000 ms). */
function maxInAnyOneSecondWindow(requests: readonly RecordedRequest[]): number {
  const times = requests.map((request) => request.receivedAt).sort((a, b) => a - b);
  let max = 0;
  for (let i = 0; i < times.length; i += 1) {
    let count = 0;
    for (let j = i; j < times.length && (times[j] as number) - (times[i] as number) < ONE_SECOND_MS; j += 1) count += 1;
    max = Math.max(max, count);
  }
  return max;
}

/** Arrival times relative to the first, for failure messages. */
function timeline(requests: readonly RecordedRequest[]): string {
  const times = requests.map((request) => request.receivedAt).sort((a, b) => a - b);
  return times.map((t) => (t - (times[0] as number)).toFixed(1)).join(" ");
}

function spanMs(requests: readonly RecordedRequest[]): number {
  const times = requests.map((request) => request.receivedAt);
  return Math.max(...times) - Math.min(...times);
}

/** `count` pages fetched concurrently through `source`. */
function fetchPages(source: SourceClient, connection: SourceConnection, count: number): Promise<unknown[]> {
  return Promise.all(range(count).map((i) => source.fetchPage(connection, { path: "/leads", page: i + 1 })));
}

describe("DynamoDbRateLimiter against a real source (DynamoDB Local, loopback HTTP)", () => {
  test("rate limit: never more than rate_limit requests in any one-second window across several callers", async () => {
    const rate = 5;
    const server = await sourceServer();
    const connectionId = newConnection();
    const connection = { baseUrl: server.baseUrl, token: "token-a" };
    const http = createHttpSourceClient();
    // Three callers (separate page Lambdas / the onboarding test call), 5 concurrent requests each.
    const callers = range(3).map(() => rateLimited(http, processLimiter(), { connectionId, rateLimit: rate }));

    await Promise.all(callers.map((caller) => fetchPages(caller, connection, 5)));

    expect(server.requests).toHaveLength(15);
    expect(maxInAnyOneSecondWindow(server.requests), timeline(server.requests)).toBeLessThanOrEqual(rate);
  });

  test("rate limit: at least 90% of the declared rate is used while requests are waiting", async () => {
    const rate = 10;
    // n - 1 a multiple of the rate: then (n - 1) / span can only exceed the rate by breaking the window
    // rule, whatever the admission pattern (bursts per window or evenly spaced).
    const n = 2 * rate + 1;
    const server = await sourceServer();
    const connectionId = newConnection();
    const source = rateLimited(createHttpSourceClient(), processLimiter(), { connectionId, rateLimit: rate });

    await fetchPages(source, { baseUrl: server.baseUrl, token: "token-a" }, n);

    expect(server.requests).toHaveLength(n);
    const measuredRate = (n - 1) / (spanMs(server.requests) / 1000);
    expect(measuredRate, timeline(server.requests)).toBeGreaterThanOrEqual(0.9 * rate);
    expect(measuredRate, timeline(server.requests)).toBeLessThanOrEqual(rate);
    expect(maxInAnyOneSecondWindow(server.requests), timeline(server.requests)).toBeLessThanOrEqual(rate);
  });

  test("rate limit: two connections to the same base URL are throttled independently", async () => {
    const rate = 2;
    const server = await sourceServer();
    const http = createHttpSourceClient();
    const a = { connectionId: newConnection(), token: "token-a" };
    const b = { connectionId: newConnection(), token: "token-b" };
    const through = (c: typeof a) => rateLimited(http, processLimiter(), { connectionId: c.connectionId, rateLimit: rate });

    await Promise.all([
      fetchPages(through(a), { baseUrl: server.baseUrl, token: a.token }, 4),
      fetchPages(through(b), { baseUrl: server.baseUrl, token: b.token }, 4),
    ]);

    const of = (c: typeof a) => server.requests.filter((r) => r.headers.authorization === `Bearer ${c.token}`);
    expect(of(a)).toHaveLength(4);
    expect(of(b)).toHaveLength(4);
    // Each connection keeps to its own rate...
    expect(maxInAnyOneSecondWindow(of(a)), timeline(of(a))).toBeLessThanOrEqual(rate);
    expect(maxInAnyOneSecondWindow(of(b)), timeline(of(b))).toBeLessThanOrEqual(rate);
    // ...and neither waits for the other: the base URL sees both rates at once, and all 8 requests fit in
    // the time 4 take alone (one window), where one shared limit of 2/s would need 3 s between first and last.
    expect(maxInAnyOneSecondWindow(server.requests), timeline(server.requests)).toBe(2 * rate);
    expect(spanMs(server.requests), timeline(server.requests)).toBeLessThan(2 * ONE_SECOND_MS);
  });
});

describe("DynamoDbRateLimiter on a fake clock (DynamoDB Local)", () => {
  /** A limiter whose clock only moves when it sleeps. */
  function fakeClockLimiter(start = 1_000_000) {
    const clock = { t: start, sleeps: [] as number[] };
    const limiter = new DynamoDbRateLimiter({
      client,
      tableName,
      now: () => clock.t,
      sleep: async (ms) => {
        clock.sleeps.push(ms);
        clock.t += ms;
      },
    });
    return { clock, limiter };
  }

  async function storedStarts(connectionId: string): Promise<number[]> {
    const out = await client.send(
      new GetItemCommand({
        TableName: tableName,
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
    const limiters = range(4).map(() => new DynamoDbRateLimiter({ client, tableName, now: () => t, sleep: async () => {} }));
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
    const limiter = new DynamoDbRateLimiter({ client, tableName, now: () => clock.shift() ?? t + 100, sleep: async () => {} });

    await limiter.acquire(connectionId, 1);

    // The late slot (t) was replaced by the fresh one (t + 100): not used, not lost, and no wait for it.
    expect(await storedStarts(connectionId)).toEqual([t + 100]);
    expect(clock).toEqual([]);
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
    // Re-stamping: this caller's unused slots leave the log and are replaced, never double-counted.
    expect(planAcquire([5, 7, 7], 3, 40, 2, 1000, { at: 7, count: 2 })).toEqual({ admit: true, count: 2, starts: [5, 40, 40] });
  });
});
