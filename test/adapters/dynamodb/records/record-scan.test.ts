import { describe, expect, test } from "vitest";
import { DynamoDbRecordScan } from "../../../../lambdas/adapters/dynamodb/records/record-scan";
import { DynamoDbRecordStore } from "../../../../lambdas/adapters/dynamodb/records/dynamodb-record-store";
import { DynamoDbRunStore } from "../../../../lambdas/adapters/dynamodb/runs/dynamodb-run-store";
import { RECORD_SHARDS_BY_COLLECTION } from "../../../../lambdas/adapters/dynamodb/records/keys";
import { runHoldingLock } from "../../../builders/page-runs";
import { useTestTable } from "../../../support/dynamodb";

/**
 * The scan's `stop`: a caller with a time limit (the figures at a run's end) stops it between Query pages. Users
 * live in one shard, so 12 records of 100 KB (over a Query's 1 MB page) are two pages of one shard.
 */
const table = useTestTable();
const records = new DynamoDbRecordStore(table);
const scan = new DynamoDbRecordScan(table, records);
const USERS = 12;

/** The Queries the table's client sends while `work` runs. */
async function queriesDuring(work: () => Promise<unknown>): Promise<number> {
  let queries = 0;
  const name = "countScanQueries";
  table.client.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName === "QueryCommand") queries += 1;
      return next(args);
    },
    { step: "initialize", name },
  );
  try {
    await work();
  } finally {
    table.client.middlewareStack.remove(name);
  }
  return queries;
}

async function storedUsers(connectionId: string): Promise<void> {
  const run = await runHoldingLock(new DynamoDbRunStore(table), connectionId);
  const users = Array.from({ length: USERS }, (_, i) => ({ collection: "users" as const, key: [`u${i}`] as [string], doc: { id: `u${i}`, notes: "x".repeat(100_000) } }));
  for (let i = 0; i < USERS; i += 4) await records.commitPage(run.page({ connectionId, records: users.slice(i, i + 4) }, "users"));
}

describe("the record scan's stop", () => {
  test("unstopped, the scan reads every page: two Queries of the one users shard, every record", async () => {
    expect(RECORD_SHARDS_BY_COLLECTION.users).toBe(1);
    await storedUsers("conn-scan-all");
    let read = 0;
    const queries = await queriesDuring(() => scan.scan("conn-scan-all", "users", (docs) => (read += docs.length)));
    expect(queries).toBe(2);
    expect(read).toBe(USERS);
  });

  test("a stop that is true after the first page: no second Query, and only the first page's records", async () => {
    await storedUsers("conn-scan-stop");
    let read = 0;
    const queries = await queriesDuring(() => scan.scan("conn-scan-stop", "users", (docs) => (read += docs.length), { stop: () => read > 0 }));
    expect(queries).toBe(1);
    expect(read).toBeGreaterThan(0);
    expect(read).toBeLessThan(USERS);
  });

  test("a stop that is true from the start: no Query at all", async () => {
    let read = 0;
    const queries = await queriesDuring(() => scan.scan("conn-scan-stop", "leads", (docs) => (read += docs.length), { stop: () => true }));
    expect(queries).toBe(0);
    expect(read).toBe(0);
  });
});
