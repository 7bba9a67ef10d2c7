import { randomUUID } from "node:crypto";
import type { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { beforeAll, describe, expect, test } from "vitest";
import { RunSupersededError } from "../../../../lambdas/domain/core/errors";
import type { PageListing, PageWrite, RecordWrite } from "../../../../lambdas/domain/core/ports/record-store";
import { DynamoDbRecordStore } from "../../../../lambdas/adapters/dynamodb/records/dynamodb-record-store";
import { DynamoDbRunStore } from "../../../../lambdas/adapters/dynamodb/runs/dynamodb-run-store";
import { FAR_LEASE, PAGE_COMMITTED_AT } from "../../../builders/page-runs";
import { testDynamoDbClient, useTestTable } from "../../../support/dynamodb";
import { countWriteUnits } from "../../../support/write-units";
import { clientFailingTransactions } from "../../../support/failing-transactions";

/**
 * An unchanged whole listing is not rewritten (lambdas/adapters/dynamodb/records/page-transactions.ts, rule 5), and a stored listing
 * hash always names what the table holds: after a change, a partial write, a listing that outgrew one page, a
 * reset, a replay. Each run here is a real run holding the connection's lock; each page its next page number.
 */
const table = useTestTable();
const store = new DynamoDbRecordStore(table);
const runs = new DynamoDbRunStore(table);
let reader: DynamoDBClient;

beforeAll(() => {
  reader = testDynamoDbClient();
  return () => reader.destroy();
});

const WHOLE: PageListing = { hasMore: false, updatedSince: null };
const FIRST_OF_MORE: PageListing = { hasMore: true, updatedSince: null };

const user = (id: string, name = `User ${id}`): RecordWrite => ({ collection: "users", key: [id], doc: { id, name, email: null, role: null, is_active: true } });
const users = (n: number, name = (i: number) => `User ${i}`) => Array.from({ length: n }, (_, i) => user(`u${String(i).padStart(3, "0")}`, name(i)));

let runNumber = 0;
/** A new run of the connection (the previous one finished), and its page writer. */
async function newRun(connectionId: string) {
  runNumber += 1;
  const runId = `run-${runNumber}`;
  const held = await runs.lock(connectionId);
  if (held !== null) await runs.finish(connectionId, held.runId, { status: "succeeded", finishedAt: "2026-01-01T00:00:00.000Z" });
  await runs.begin({ connectionId, runId, startedAt: "2026-01-01T00:00:00.000Z", leaseUntil: FAR_LEASE });
  let page = 0;
  return {
    runId,
    page(records: readonly RecordWrite[], listing: PageListing, again = false): PageWrite {
      if (!again) page += 1;
      return { connectionId, records, listing, run: { runId, entity: "users", page, records: records.length, stages: 0, unresolvedWonLost: 0, leaseUntil: FAR_LEASE, committedAt: PAGE_COMMITTED_AT } };
    },
  };
}

async function storedNames(connectionId: string): Promise<Record<string, unknown>> {
  const page = await store.listRecords(connectionId, "users", { limit: 1000 });
  return Object.fromEntries(page.records.map((doc) => [doc["id"], doc["name"]]));
}

/** Commits through a client that counts what it writes: the record items written. */
async function recordItemsWritten(write: PageWrite, via: DynamoDbRecordStore = store, client?: DynamoDBClient): Promise<number> {
  const counting = client ?? testDynamoDbClient();
  const counter = countWriteUnits(counting, reader);
  await (client === undefined ? new DynamoDbRecordStore({ client: counting, tableName: table.tableName }) : via).commitPage(write);
  if (client === undefined) counting.destroy();
  return counter.writes.filter((written) => written.pk.startsWith("REC#")).length;
}

describe("an unchanged whole listing", () => {
  test("unchanged full lists are not rewritten: a whole listing identical to the last committed one writes no record items; a changed record is written", async () => {
    const connectionId = `conn-${randomUUID()}`;
    expect(await recordItemsWritten((await newRun(connectionId)).page(users(30), WHOLE))).toBe(30);
    expect(await recordItemsWritten((await newRun(connectionId)).page(users(30), WHOLE))).toBe(0);

    const renamed = users(30, (i) => (i === 7 ? "Renamed" : `User ${i}`));
    expect(await recordItemsWritten((await newRun(connectionId)).page(renamed, WHOLE))).toBe(30);
    expect((await storedNames(connectionId))["u007"]).toBe("Renamed");
    expect(await recordItemsWritten((await newRun(connectionId)).page(renamed, WHOLE))).toBe(0);
  });

  test("a listing written only in part (a crash between its transactions) is written again, even when the source goes back to the content of the stored hash", async () => {
    const connectionId = `conn-${randomUUID()}`;
    // 150 users: two transactions.
    const before = users(150);
    await store.commitPage((await newRun(connectionId)).page(before, WHOLE));

    const failing = clientFailingTransactions(2, "only");
    const changed = users(150, () => "Changed");
    await expect(new DynamoDbRecordStore({ client: failing, tableName: table.tableName }).commitPage((await newRun(connectionId)).page(changed, WHOLE))).rejects.toThrow(
      "injected failure of transaction 2",
    );
    failing.destroy();
    const partly = Object.values(await storedNames(connectionId));
    expect(partly).toContain("Changed");
    expect(partly).toContain("User 149");

    await store.commitPage((await newRun(connectionId)).page(before, WHOLE));
    expect(Object.values(await storedNames(connectionId)).filter((name) => name === "Changed")).toEqual([]);
  });

  test("a listing that outgrew one page and shrank back is written again (a record its second page changed is restored)", async () => {
    const connectionId = `conn-${randomUUID()}`;
    const list = users(3);
    await store.commitPage((await newRun(connectionId)).page(list, WHOLE));

    // The listing shifts while it is read: u001 comes again on page 2, changed.
    const grown = await newRun(connectionId);
    await store.commitPage(grown.page(list, FIRST_OF_MORE));
    await store.commitPage(grown.page([user("u001", "On page 2")], { hasMore: false, updatedSince: null }));
    expect((await storedNames(connectionId))["u001"]).toBe("On page 2");

    await store.commitPage((await newRun(connectionId)).page(list, WHOLE));
    expect((await storedNames(connectionId))["u001"]).toBe("User 1");
  });

  test("the reset of a connection's watermarks makes its next listing be written whole", async () => {
    const connectionId = `conn-${randomUUID()}`;
    await store.commitPage((await newRun(connectionId)).page(users(5), WHOLE));
    const held = await runs.lock(connectionId);
    await runs.finish(connectionId, held!.runId, { status: "succeeded", finishedAt: "2026-01-01T00:00:00.000Z" });
    await store.resetWatermarks(connectionId);
    expect(await recordItemsWritten((await newRun(connectionId)).page(users(5), WHOLE))).toBe(5);
  });

  test("a retried or replayed page 1 leaves the same data: the same content writes nothing more, changed content is written", async () => {
    const connectionId = `conn-${randomUUID()}`;
    await store.commitPage((await newRun(connectionId)).page(users(4), WHOLE));
    const run = await newRun(connectionId);
    const changed = users(4, (i) => `Changed ${i}`);
    await store.commitPage(run.page(changed, WHOLE));
    // The reply was lost: the same page again, as the state machine retries it.
    expect(await recordItemsWritten(run.page(changed, WHOLE, true))).toBe(0);
    // A retry that fetched the old content again (the source changed back between the attempts) writes it.
    expect(await recordItemsWritten(run.page(users(4), WHOLE, true))).toBe(4);
    expect(Object.values(await storedNames(connectionId))).toEqual(["User 0", "User 1", "User 2", "User 3"]);
    const summary = await runs.get(connectionId, run.runId);
    expect(summary?.entities.find((row) => row.entity === "users")?.pages).toBe(1);
  });

  test("the run lock fences an unchanged listing too: a run that lost its lock writes nothing", async () => {
    const connectionId = `conn-${randomUUID()}`;
    await store.commitPage((await newRun(connectionId)).page(users(4), WHOLE));
    const superseded = await newRun(connectionId);
    const page = superseded.page(users(4), WHOLE);
    await newRun(connectionId); // another run takes the lock
    const counting = testDynamoDbClient();
    const counter = countWriteUnits(counting, reader);
    await expect(new DynamoDbRecordStore({ client: counting, tableName: table.tableName }).commitPage(page)).rejects.toThrow(RunSupersededError);
    counting.destroy();
    expect(counter.writes).toEqual([]);
  });
});

