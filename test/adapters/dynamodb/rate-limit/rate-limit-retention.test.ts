import { randomUUID } from "node:crypto";
import { describe, expect, test } from "vitest";
import { TTL_ATTRIBUTE } from "../../../../lib/record-table";
import { DynamoDbRateLimiter, RATE_LOG_RETENTION_SECONDS } from "../../../../lambdas/adapters/dynamodb/rate-limit/dynamodb-rate-limiter";
import { RATE_ATTR, rateLimitPartitionKey, rateLimitSortKey } from "../../../../lambdas/adapters/dynamodb/rate-limit/rate-limit-keys";
import { readItem, useTestTable } from "../../../support/dynamodb";

const table = useTestTable();

const rawLog = (connectionId: string) => readItem(table, rateLimitPartitionKey(connectionId), rateLimitSortKey());

/** An injected clock that moves only when the test moves it; sleeping is never needed (the window has room). */
function limiterAt(start: number) {
  let now = start;
  const limiter = new DynamoDbRateLimiter({
    client: table.client,
    tableName: table.tableName,
    clock: { now: () => new Date(now) },
    sleep: () => Promise.reject(new Error("the test never lets the window fill")),
  });
  return { limiter, moveTo: (t: number) => (now = t) };
}

describe("rate-limiter retention (DynamoDB TTL, DynamoDB Local)", () => {
  test("the limiter's retention is one day", () => {
    expect(RATE_LOG_RETENTION_SECONDS).toBe(86_400);
  });

  test("a rate-limit log expires one day after the last slot written, and each write moves it", async () => {
    const connectionId = `conn-${randomUUID()}`;
    const first = Date.parse("2026-11-23T11:00:00.250Z");
    const { limiter, moveTo } = limiterAt(first);

    expect(await limiter.acquire(connectionId, 5)).toBe(first);
    const afterFirst = await rawLog(connectionId);
    expect(afterFirst?.[TTL_ATTRIBUTE]?.N).toBe(String(Math.floor(first / 1000) + 86_400));
    expect(afterFirst?.[RATE_ATTR.version]?.N).toBe("1");

    const later = first + 3 * 60 * 60 * 1000 + 999; // three hours on
    moveTo(later);
    // A second limiter (another process) reads the log, so its write goes through the version condition.
    const other = new DynamoDbRateLimiter({ client: table.client, tableName: table.tableName, clock: { now: () => new Date(later) }, sleep: () => Promise.reject(new Error("no wait")) });
    expect(await other.acquire(connectionId, 5)).toBe(later);
    const afterSecond = await rawLog(connectionId);
    expect(afterSecond?.[TTL_ATTRIBUTE]?.N).toBe(String(Math.floor(later / 1000) + 86_400));
    expect(afterSecond?.[RATE_ATTR.version]?.N).toBe("2");
    // The start of three hours ago is older than the log's two windows: it is dropped, not carried.
    expect(afterSecond?.[RATE_ATTR.starts]?.L?.map((start) => Number(start.N))).toEqual([later]);
  });
});
