import { describe, expect, test } from "vitest";
import type { Clock } from "../../../lambdas/domain/core/ports/clock";
import type { RateLimiter } from "../../../lambdas/domain/core/ports/rate-limiter";
import type { SourceClient } from "../../../lambdas/domain/core/ports/source-client";
import { RateLimitSlotsStaleError } from "../../../lambdas/domain/core/errors";
import { MAX_STALE_SLOTS, SLOT_LATE_MS } from "../../../lambdas/domain/core/limits";
import { rateLimited } from "../../../lambdas/domain/sync/rate-limited-source-client";

/** A limiter that hands out the given recorded starts in order (the DynamoDB one is tested on DynamoDB Local). */
function scriptedLimiter(slots: number[]): RateLimiter & { calls: number } {
  const limiter = {
    calls: 0,
    acquire: async () => {
      limiter.calls += 1;
      return slots.shift() ?? Number.NaN;
    },
  };
  return limiter;
}

const source: SourceClient & { sent: number } = {
  sent: 0,
  async fetchPage() {
    source.sent += 1;
    return { data: [], hasMore: false };
  },
};
const connection = { baseUrl: "http://127.0.0.1:1", token: "t" };
/** A clock stopped at `ms` (epoch). */
const at = (ms: number): Clock => ({ now: () => new Date(ms) });

describe("rateLimited", () => {
  test("rate limit: every request takes a slot before it is sent", async () => {
    source.sent = 0;
    const limiter = scriptedLimiter([1_000, 2_000]);
    const client = rateLimited(source, limiter, { connectionId: "c", rateLimit: 5 }, at(1_000));
    await client.fetchPage(connection, { path: "/leads", page: 1 });
    expect(limiter.calls).toBe(1);
    expect(source.sent).toBe(1);
  });

  test("rate limit: a slot gone stale before the request is sent is left unused and a fresh one is taken", async () => {
    source.sent = 0;
    const now = 10_000;
    const limiter = scriptedLimiter([now - SLOT_LATE_MS - 1, now - SLOT_LATE_MS - 30, now - 2]);
    const client = rateLimited(source, limiter, { connectionId: "c", rateLimit: 5 }, at(now));
    await client.fetchPage(connection, { path: "/leads", page: 1 });
    expect(limiter.calls).toBe(3);
    expect(source.sent).toBe(1);
  });

  test("rate limit: a stale slot is named when the fresh one is taken, so that the fresh one replaces it in the window", async () => {
    source.sent = 0;
    const now = 10_000;
    const asked: unknown[] = [];
    const slots = [now - SLOT_LATE_MS - 5, now - 1];
    const limiter: RateLimiter = {
      acquire: async (_connectionId, _rate, options) => {
        asked.push(options);
        return slots.shift()!;
      },
    };
    const client = rateLimited(source, limiter, { connectionId: "c", rateLimit: 5 }, at(now));
    await client.fetchPage(connection, { path: "/leads", page: 1 });
    expect(asked).toEqual([undefined, { replacing: now - SLOT_LATE_MS - 5 }]);
    expect(source.sent).toBe(1);
  });

  test("rate limit: the slot loop is bounded; after MAX_STALE_SLOTS stale slots the request fails clearly and is not sent", async () => {
    source.sent = 0;
    const now = 10_000;
    // Every slot is stale (a starved process): without a bound this would loop for ever.
    const limiter = scriptedLimiter(Array.from({ length: 1_000 }, () => now - SLOT_LATE_MS - 1));
    const client = rateLimited(source, limiter, { connectionId: "c", rateLimit: 5 }, at(now));
    const failure = client.fetchPage(connection, { path: "/leads", page: 1 });
    await expect(failure).rejects.toBeInstanceOf(RateLimitSlotsStaleError);
    await expect(failure).rejects.toMatchObject({ retryable: true, detail: expect.stringContaining(`${MAX_STALE_SLOTS} rate-limit slots`) });
    expect(limiter.calls).toBe(MAX_STALE_SLOTS);
    expect(source.sent).toBe(0);
  });

  test("rate limit: a slot reserved ahead is waited for: the request never leaves before its recorded start", async () => {
    source.sent = 0;
    let now = 10_000;
    const sentAt: number[] = [];
    const timed: SourceClient = {
      async fetchPage() {
        sentAt.push(now);
        return { data: [], hasMore: false };
      },
    };
    const limiter = scriptedLimiter([]);
    const slept: number[] = [];
    // The clock moves only when the client sleeps: the request's send time is exactly what the client waited for.
    const sleep = async (ms: number) => {
      slept.push(ms);
      now += ms;
    };
    const client = rateLimited(timed, limiter, { connectionId: "c", rateLimit: 5 }, { now: () => new Date(now) }, Promise.resolve(10_030), sleep);
    await client.fetchPage(connection, { path: "/leads", page: 1 });
    expect(sentAt).toEqual([10_030]);
    expect(slept).toEqual([30]);
    expect(limiter.calls).toBe(0);
  });
});
