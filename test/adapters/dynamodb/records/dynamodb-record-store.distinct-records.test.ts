import { randomUUID } from "node:crypto";
import type { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { describe, expect, test } from "vitest";
import type { PageWrite, RecordWrite } from "../../../../lambdas/domain/core/ports/record-store";
import { DynamoDbRecordStore } from "../../../../lambdas/adapters/dynamodb/records/dynamodb-record-store";
import { DynamoDbRunStore } from "../../../../lambdas/adapters/dynamodb/runs/dynamodb-run-store";
import { planPageTransactions } from "../../../../lambdas/adapters/dynamodb/records/page-transactions";
import { runHoldingLock } from "../../../builders/page-runs";
import { testDynamoDbClient, useTestTable } from "../../../support/dynamodb";
import { clientFailingTransactions } from "../../../support/failing-transactions";

/**
 * A run summary's `records` counts distinct records: a record a source sends
 * on two pages of one run (a record changed mid-run moves to a later page) is
 * one record, and so is a page replayed after it wrote its records. The count
 * comes from the heads' own conditions, never from a read.
 */

const table = useTestTable();
const store = new DynamoDbRecordStore(table);
const runStore = new DynamoDbRunStore(table);
const newConnection = () => `conn-${randomUUID()}`;
const row = async (connectionId: string, runId: string, entity: string) =>
  (await runStore.get(connectionId, runId))!.entities.find((progress) => progress.entity === entity);
const lead = (id: string, name = `Lead ${id}`): RecordWrite => ({ collection: "leads", key: [id], doc: { id, name, price: 1, is_deleted: false } });
const lossReason = (id: string): RecordWrite => ({ collection: "loss_reasons", key: [id], doc: { id, text: `reason ${id}` } });
const stage = (id: string): RecordWrite => ({ collection: "stages", key: ["p1", id], doc: { id, pipeline_id: "p1", kind: "open" } });
const pipeline = (id: string): RecordWrite => ({ collection: "pipelines", key: [id], doc: { id } });

/** The page as the page task builds it: its run counts are the distinct records of the page (prepared.records). */
function counted(write: PageWrite, entity = write.run.entity): PageWrite {
  const own = write.records.filter((record) => record.collection === entity).length;
  const stages = write.records.filter((record) => record.collection === "stages").length;
  return { ...write, run: { ...write.run, records: own, stages: entity === "pipelines" ? stages : 0 } };
}

describe("records counts distinct records written by the run", () => {
  test("records counts distinct records: a record on two pages of one run counts once; its lineage counts both pages' writes", async () => {
    const connectionId = newConnection();
    const run = await runHoldingLock(runStore, connectionId);
    await store.commitPage(counted(run.page({ connectionId, records: [lead("l1"), lead("l2")] }, "leads")));
    await store.commitPage(counted(run.page({ connectionId, records: [lead("l2", "moved"), lead("l3")] }, "leads")));
    await store.commitPage(counted(run.page({ connectionId, records: [lead("l1", "again"), lead("l2", "again")] }, "leads")));

    expect(await row(connectionId, run.runId, "leads")).toMatchObject({ pages: 3, records: 3 });
    const l2 = await store.getRecord(connectionId, "leads", ["l2"]);
    expect(l2.record?.["name"]).toBe("again");
    expect(l2.lineage).toMatchObject({ writes: 3, first_seen: { page: 1 }, last_written: { page: 3 } });
  });

  test("records counts distinct records: a page replayed after it committed, and one replayed after a crash between its transactions, count each record once", async () => {
    const connectionId = newConnection();
    const run = await runHoldingLock(runStore, connectionId);
    const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => lead(`l${String(from + i).padStart(3, "0")}`));
    const first = counted(run.page({ connectionId, records: range(0, 100) }, "leads"));
    await store.commitPage(first);
    await store.commitPage(first);

    // Page 2 repeats l090..l099 and needs several transactions (loss reasons first); the second one never commits.
    const second = counted(run.page({ connectionId, records: [...Array.from({ length: 60 }, (_, i) => lossReason(`r${i}`)), ...range(90, 150)] }, "leads"));
    expect(planPageTransactions(table.tableName, second).length).toBe(2);
    const failing = clientFailingTransactions(2, "from");
    await expect(new DynamoDbRecordStore({ client: failing, tableName: table.tableName }).commitPage(second)).rejects.toThrow("injected failure");
    failing.destroy();
    await store.commitPage(second);
    await store.commitPage(second);

    expect(await row(connectionId, run.runId, "leads")).toMatchObject({ pages: 2, records: 150 });
    expect((await store.getRecord(connectionId, "leads", ["l095"])).lineage).toMatchObject({ writes: 2, last_written: { page: 2 } });
    expect((await store.getRecord(connectionId, "leads", ["l120"])).lineage).toMatchObject({ writes: 1, last_written: { page: 2 } });
  });

  test("records counts distinct records: a pipelines page that repeats a pipeline counts it and its stages once", async () => {
    const connectionId = newConnection();
    const run = await runHoldingLock(runStore, connectionId);
    await store.commitPage(counted(run.page({ connectionId, records: [pipeline("p1"), stage("s1"), stage("s2")] }, "pipelines")));
    await store.commitPage(counted(run.page({ connectionId, records: [pipeline("p1"), stage("s1"), stage("s2"), pipeline("p2"), stage("s3")] }, "pipelines")));
    expect(await row(connectionId, run.runId, "pipelines")).toMatchObject({ pages: 2, records: 2 });
    expect(await row(connectionId, run.runId, "stages")).toMatchObject({ pages: 2, records: 3 });
  });

  test("records counts distinct records: the next run counts every record it writes again", async () => {
    const connectionId = newConnection();
    const first = await runHoldingLock(runStore, connectionId, `run-a-${connectionId}`);
    await store.commitPage(counted(first.page({ connectionId, records: [lead("l1"), lead("l2")] }, "leads")));
    await runStore.finish(connectionId, first.runId, { status: "succeeded", finishedAt: "2026-01-01T00:10:00.000Z" });
    const second = await runHoldingLock(runStore, connectionId, `run-b-${connectionId}`);
    await store.commitPage(counted(second.page({ connectionId, records: [lead("l1"), lead("l2")] }, "leads")));
    expect(await row(connectionId, second.runId, "leads")).toMatchObject({ pages: 1, records: 2 });
    expect((await store.getRecord(connectionId, "leads", ["l1"])).lineage).toMatchObject({ writes: 2, first_seen: { run_id: first.runId }, last_written: { run_id: second.runId } });
  });
});
