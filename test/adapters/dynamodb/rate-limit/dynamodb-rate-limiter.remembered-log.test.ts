import { randomUUID } from "node:crypto";
import type { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { DynamoDbRateLimiter } from "../../../../lambdas/adapters/dynamodb/rate-limit/dynamodb-rate-limiter";
import { createTestTable, testDynamoDbClient } from "../../../support/dynamodb";

/**
 * The limiter's round trips: a process that wrote the log last takes its next
 * slot with one conditional write, no read; a log changed by another process
 * is read again (the write, conditioned on the version, loses the race).
 * Time is a fake clock that only moves when the limiter sleeps.
 */

let tableName: string;
const clients: DynamoDBClient[] = [];

beforeAll(async () => {
  const setup = countingClient();
  tableName = await createTestTable(setup.client);
});
afterAll(() => {
  for (const client of clients) client.destroy();
});

/** A DynamoDB client whose calls are counted by command name. */
function countingClient() {
  const client = testDynamoDbClient();
  clients.push(client);
  const calls: string[] = [];
  client.middlewareStack.add(
    (next, context) => async (args) => {
      calls.push(context.commandName ?? "unknown");
      return next(args);
    },
    { step: "initialize", name: "countCalls" },
  );
  return { client, calls };
}

/** A limiter on its own client (another process) with a clock that advances only by its own sleeps. */
function processLimiter(clock: { now: number }) {
  const { client, calls } = countingClient();
  const limiter = new DynamoDbRateLimiter({
    client,
    tableName,
    clock: { now: () => new Date(clock.now) },
    sleep: async (ms) => {
      clock.now += Math.max(ms, 1);
    },
  });
  return { limiter, calls };
}

describe("rate limit: round trips of the DynamoDB limiter", () => {
  test("a process that wrote the log last takes its next slot with one write and no read", async () => {
    const clock = { now: 1_000_000 };
    const { limiter, calls } = processLimiter(clock);
    const connection = `conn-${randomUUID()}`;

    await limiter.acquire(connection, 10);
    expect(calls).toEqual(["GetItemCommand", "PutItemCommand"]);
    calls.length = 0;
    for (let request = 0; request < 5; request += 1) {
      clock.now += 100;
      await limiter.acquire(connection, 10);
    }
    expect(calls).toEqual(Array(5).fill("PutItemCommand"));
  });

  test("a log another process changed is read again before the slot is taken, so the window still holds", async () => {
    const clock = { now: 2_000_000 };
    const a = processLimiter(clock);
    const b = processLimiter(clock);
    const connection = `conn-${randomUUID()}`;

    const first = await a.limiter.acquire(connection, 1);
    const second = await b.limiter.acquire(connection, 1);
    // b read a's slot and had to wait for it to leave the window.
    expect(second - first).toBeGreaterThanOrEqual(1000);
    a.calls.length = 0;
    const third = await a.limiter.acquire(connection, 1);
    // a's remembered log is stale: its write loses the race, it reads b's slot and waits past it.
    expect(a.calls).toEqual(["PutItemCommand", "GetItemCommand", "PutItemCommand"]);
    expect(third - second).toBeGreaterThanOrEqual(1000);
  });
});
