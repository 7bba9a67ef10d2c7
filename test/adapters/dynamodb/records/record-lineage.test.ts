import { randomUUID } from "node:crypto";
import { PutItemCommand, TransactWriteItemsCommand } from "@aws-sdk/client-dynamodb";
import { describe, expect, test } from "vitest";
import type { PageWrite, RecordWrite } from "../../../../lambdas/domain/core/ports/record-store";
import { DynamoDbRecordStore } from "../../../../lambdas/adapters/dynamodb/records/dynamodb-record-store";
import { DynamoDbRunStore } from "../../../../lambdas/adapters/dynamodb/runs/dynamodb-run-store";
import { recordPartitionKey } from "../../../../lambdas/adapters/dynamodb/records/keys";
import { planPageTransactions } from "../../../../lambdas/adapters/dynamodb/records/page-transactions";
import { PAGE_COMMITTED_AT, pageRun, runHoldingLock } from "../../../builders/page-runs";
import { useTestTable } from "../../../support/dynamodb";

/**
 * Issue 22 item 3: a record's lineage lives on its own head, written by the
 * same action that stores the record (no extra write or read per record), and
 * stays exact across retried and replayed pages.
 */
const table = useTestTable();
const store = new DynamoDbRecordStore(table);
const runs = new DynamoDbRunStore(table);


const newConnection = () => `conn-${randomUUID()}`;
const T1 = "2026-02-01T10:00:00.000Z";
const T2 = "2026-02-01T11:00:00.000Z";

const lead = (id: string, extra: Record<string, unknown> = {}, lineage: RecordWrite["lineage"] = undefined): RecordWrite => ({
  collection: "leads",
  key: [id],
  doc: { id, name: `Lead ${id}`, price: 100, is_deleted: false, updated_at: "2026-01-05T00:00:00.000Z", ...extra },
  ...(lineage === undefined ? {} : { lineage }),
});

/** Pages of one run that holds the connection's lock; `next()` gives the next run (the previous one finished). */
async function runsOf(connectionId: string) {
  let index = 0;
  let current = await runHoldingLock(runs, connectionId, `run-${index}`);
  return {
    get runId() {
      return current.runId;
    },
    page(records: RecordWrite[], committedAt: string): PageWrite {
      const write = current.page({ connectionId, records });
      return { ...write, run: { ...write.run, committedAt } };
    },
    async next() {
      await runs.finish(connectionId, current.runId, { status: "succeeded", finishedAt: T1 });
      index += 1;
      current = await runHoldingLock(runs, connectionId, `run-${index}`);
    },
  };
}

describe("a record's lineage", () => {
  test("lineage is kept on the record's own item: first_seen is the page that first wrote it, last_written the latest, writes counts the pages", async () => {
    const connectionId = newConnection();
    const run = await runsOf(connectionId);
    await store.commitPage(run.page([lead("l1", {}, { sourceUpdatedAt: "2026-01-05T00:00:00.000Z", findings: [] })], T1));
    const first = run.runId;
    await run.next();
    await store.commitPage(run.page([lead("l2")], T2));
    await store.commitPage(run.page([lead("l1", { name: "renamed", updated_at: "2026-01-06T00:00:00.000Z" }, { sourceUpdatedAt: "2026-01-06T00:00:00.000Z", findings: [] })], T2));

    const stored = await store.getRecord(connectionId, "leads", ["l1"]);
    expect(stored.record).toMatchObject({ id: "l1", name: "renamed" });
    expect(stored.lineage).toEqual({
      first_seen: { run_id: first, page: 1, at: T1 },
      last_written: { run_id: run.runId, page: 2, at: T2, source_updated_at: "2026-01-06T00:00:00.000Z" },
      writes: 2,
      deleted_at: null,
      healed_by_audit: null,
      findings: [],
    });
  });

  test("lineage adds no write per record: a page's transactions hold one action per record head, as before", () => {
    const records = Array.from({ length: 10 }, (_, i) => lead(`l${i}`));
    const plan = planPageTransactions("t", { connectionId: "c", records, run: pageRun(), lastPage: true });
    // The lease, the progress, one action per record, the page's change item, then the entity's data_as_of (its last page).
    expect(plan.map((tx) => tx.TransactItems!.length)).toEqual([2 + records.length + 1 + 1]);
    const heads = plan[0]!.TransactItems!.slice(2, -2);
    expect(heads.every((action) => action.Update?.UpdateExpression?.includes("#last_written = :lastWritten"))).toBe(true);
  });

  test("a replayed page counts a record's write once: a page committed again, and a page replayed after a crash between its transactions", async () => {
    const connectionId = newConnection();
    const run = await runsOf(connectionId);
    // 150 leads: two transactions. The first one commits, then the page "crashes" and is replayed whole.
    const records = Array.from({ length: 150 }, (_, i) => lead(`l${String(i).padStart(3, "0")}`));
    const page = run.page(records, T1);
    const plan = planPageTransactions(table.tableName, page);
    expect(plan.length).toBe(2);
    await table.client.send(new TransactWriteItemsCommand(plan[0]!));
    await store.commitPage(page);
    // And once more, as a retry after a lost reply would.
    await store.commitPage(page);

    const all = await Promise.all(records.map((record) => store.getRecord(connectionId, "leads", record.key)));
    expect(all.map((stored) => stored.lineage?.writes)).toEqual(records.map(() => 1));
    const summary = await runs.get(connectionId, run.runId);
    expect(summary?.entities.find((row) => row.entity === "leads")).toMatchObject({ pages: 1, records: 0 });
  });

  test("deleted_at is when the lead was first stored soft-deleted: kept while it stays deleted, null again when the source restores it", async () => {
    const connectionId = newConnection();
    const run = await runsOf(connectionId);
    await store.commitPage(run.page([lead("l1")], T1));
    expect((await store.getRecord(connectionId, "leads", ["l1"])).lineage?.deleted_at).toBeNull();
    await store.commitPage(run.page([lead("l1", { is_deleted: true })], T1));
    await store.commitPage(run.page([lead("l1", { is_deleted: true, name: "again" })], T2));
    expect((await store.getRecord(connectionId, "leads", ["l1"])).lineage?.deleted_at).toBe(T1);
    await store.commitPage(run.page([lead("l1", { is_deleted: false })], T2));
    expect((await store.getRecord(connectionId, "leads", ["l1"])).lineage?.deleted_at).toBeNull();
  });

  test("healed_by_audit names the audit that healed the record, and no later sync write clears it", async () => {
    const connectionId = newConnection();
    const run = await runsOf(connectionId);
    const healed: RecordWrite = {
      ...lead("l1"),
      heal: { auditId: "audit-7", cause: "missed", updatedAt: "2026-01-05T00:00:00.000Z", watermark: null, at: T1 },
    };
    await store.commitPage(run.page([healed], T1));
    expect((await store.getRecord(connectionId, "leads", ["l1"])).lineage?.healed_by_audit).toBe("audit-7");
    await store.commitPage(run.page([lead("l1", { name: "later" })], T2));
    expect((await store.getRecord(connectionId, "leads", ["l1"])).lineage?.healed_by_audit).toBe("audit-7");
  });

  test("findings are the rule ids the record hit when it was last written", async () => {
    const connectionId = newConnection();
    const run = await runsOf(connectionId);
    await store.commitPage(run.page([lead("l1", {}, { sourceUpdatedAt: null, findings: ["updated-at-unparseable"] })], T1));
    expect((await store.getRecord(connectionId, "leads", ["l1"])).lineage?.findings).toEqual(["updated-at-unparseable"]);
    await store.commitPage(run.page([lead("l1", {}, { sourceUpdatedAt: "2026-01-05T00:00:00.000Z", findings: [] })], T2));
    expect((await store.getRecord(connectionId, "leads", ["l1"])).lineage?.findings).toEqual([]);
  });

  test("a head written whole as before (a Put would drop what it lacks): a record that shrinks below a split reads back whole and small", async () => {
    const connectionId = newConnection();
    const run = await runsOf(connectionId);
    await store.commitPage(run.page([lead("l1", { note: "x".repeat(700_000) })], T1));
    expect(JSON.stringify((await store.getRecord(connectionId, "leads", ["l1"])).record).length).toBeGreaterThan(700_000);
    await store.commitPage(run.page([lead("l1", { note: "small" })], T2));
    const stored = await store.getRecord(connectionId, "leads", ["l1"]);
    expect(stored.record).toMatchObject({ note: "small" });
    expect(stored.lineage?.writes).toBe(2);
  });

  test("a record stored before lineage was kept reads with null first_seen and last_written and 0 writes; a record not stored reads as null", async () => {
    const connectionId = newConnection();
    const doc = { id: "old", name: "Old" };
    await table.client.send(
      new PutItemCommand({
        TableName: table.tableName,
        Item: { pk: { S: recordPartitionKey(connectionId, "users", "old") }, sk: { S: "old" }, key: { S: '["old"]' }, doc: { S: JSON.stringify(doc) } },
      }),
    );
    expect(await store.getRecord(connectionId, "users", ["old"])).toEqual({
      record: doc,
      lineage: { first_seen: null, last_written: null, writes: 0, deleted_at: null, healed_by_audit: null, findings: [] },
    });
    expect(await store.getRecord(connectionId, "users", ["missing"])).toEqual({ record: null, lineage: null });
  });

  test("a stage is read by (pipeline, stage)", async () => {
    const connectionId = newConnection();
    const run = await runsOf(connectionId);
    const stage: RecordWrite = { collection: "stages", key: ["p1", "s1"], doc: { id: "s1", pipeline_id: "p1", kind: "won" } };
    const page = run.page([stage], PAGE_COMMITTED_AT);
    await store.commitPage({ ...page, run: { ...page.run, entity: "pipelines" } });
    expect((await store.getRecord(connectionId, "stages", ["p1", "s1"])).record).toEqual(stage.doc);
    expect((await store.getRecord(connectionId, "stages", ["p2", "s1"])).record).toBeNull();
  });
});

describe("an entity's freshness on its watermark item", () => {
  test("data_as_of is when the entity last finished a run with every page committed: only its last page (has_more false) moves it, an idle one too", async () => {
    const connectionId = newConnection();
    const run = await runsOf(connectionId);
    expect((await store.getFreshness(connectionId)).leads).toEqual({ data_as_of: null, watermark: null });
    // Page 1 of 2: the watermark moves with the page, data_as_of waits for the entity's last page.
    const first = run.page([lead("l1")], T1);
    await store.commitPage({ ...first, lastPage: false, watermark: { entity: "leads", value: "2026-01-05T00:00:00.000Z" } });
    expect((await store.getFreshness(connectionId)).leads).toEqual({ data_as_of: null, watermark: "2026-01-05T00:00:00.000Z" });
    const second = run.page([lead("l2", { updated_at: "2026-01-06T00:00:00.000Z" })], T1);
    await store.commitPage({ ...second, lastPage: true, run: { ...second.run, page: 2 }, watermark: { entity: "leads", value: "2026-01-06T00:00:00.000Z" } });
    expect((await store.getFreshness(connectionId)).leads).toEqual({ data_as_of: T1, watermark: "2026-01-06T00:00:00.000Z" });
    // The next run: an idle last page (nothing new, the watermark unmoved): the data is current as of its commit.
    await run.next();
    await store.commitPage({ ...run.page([], T2), lastPage: true });
    const freshness = await store.getFreshness(connectionId);
    expect(freshness.leads).toEqual({ data_as_of: T2, watermark: "2026-01-06T00:00:00.000Z" });
    expect(freshness.contacts).toEqual({ data_as_of: null, watermark: null });
  });

  test("a run whose entity stops after page 1 (a failed or cancelled entity) moves its watermark but keeps the data_as_of of its last complete run", async () => {
    const connectionId = newConnection();
    const run = await runsOf(connectionId);
    await store.commitPage({ ...run.page([lead("l1")], T1), lastPage: true });
    await run.next();
    // Page 1 of a run whose page 2 never commits.
    const page = run.page([lead("l2", { updated_at: "2026-01-07T00:00:00.000Z" })], T2);
    await store.commitPage({ ...page, lastPage: false, watermark: { entity: "leads", value: "2026-01-07T00:00:00.000Z" } });
    expect((await store.getFreshness(connectionId)).leads).toEqual({ data_as_of: T1, watermark: "2026-01-07T00:00:00.000Z" });
  });

  test("a full listing not rewritten (unchanged) still moves data_as_of", async () => {
    const connectionId = newConnection();
    const run = await runsOf(connectionId);
    const user: RecordWrite = { collection: "users", key: ["u1"], doc: { id: "u1", name: "U" } };
    const listing = { hasMore: false, updatedSince: null };
    const page = (committedAt: string) => {
      const write = run.page([user], committedAt);
      return { ...write, listing, lastPage: true, run: { ...write.run, entity: "users" as const } };
    };
    await store.commitPage(page(T1));
    await run.next();
    await store.commitPage(page(T2));
    expect((await store.getFreshness(connectionId)).users).toEqual({ data_as_of: T2, watermark: null });
    expect((await store.getRecord(connectionId, "users", ["u1"])).lineage?.writes).toBe(1);
  });

  test("a reset forgets the watermark and keeps data_as_of: the records it describes are still there", async () => {
    const connectionId = newConnection();
    const run = await runsOf(connectionId);
    await store.commitPage({ ...run.page([lead("l1")], T1), lastPage: true, watermark: { entity: "leads", value: "2026-01-05T00:00:00.000Z" } });
    await runs.finish(connectionId, run.runId, { status: "succeeded", finishedAt: T1 });
    await store.resetWatermarks(connectionId);
    expect(await store.getWatermark(connectionId, "leads")).toBeNull();
    expect((await store.getFreshness(connectionId)).leads).toEqual({ data_as_of: T1, watermark: null });
  });
});
