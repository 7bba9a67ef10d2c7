import { randomUUID } from "node:crypto";
import { PutItemCommand, QueryCommand, paginateScan, type AttributeValue, type DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { DynamoDbConnectionStore } from "../../../lambdas/adapters/dynamodb/connections/dynamodb-connection-store";
import type { Logger } from "../../../lambdas/domain/core/ports/logger";
import type { RecordWrite } from "../../../lambdas/domain/core/ports/record-store";
import { preflightPartitionKey } from "../../../lambdas/adapters/dynamodb/preflight-runs/preflight-keys";
import { FIGURES_SORT_KEY, figuresPartitionKey } from "../../../lambdas/adapters/dynamodb/figures/figures-keys";
import { DELETED_CONNECTION_PURGE_DELAY_SECONDS, PURGE_PARTITION_KEY } from "../../../lambdas/adapters/dynamodb/purges/purge-keys";
import type { PendingPurge } from "../../../lambdas/domain/retention/purge-queue";
import { DynamoDbPurgeQueue } from "../../../lambdas/adapters/dynamodb/purges/dynamodb-purge-queue";
import { DynamoDbRateLimiter } from "../../../lambdas/adapters/dynamodb/rate-limit/dynamodb-rate-limiter";
import { purgeDeletedConnections, type PurgeDeps } from "../../../lambdas/domain/retention/purge-deleted-connections";
import { DynamoDbRunStore } from "../../../lambdas/adapters/dynamodb/runs/dynamodb-run-store";
import { DynamoDbRecordStore } from "../../../lambdas/adapters/dynamodb/records/dynamodb-record-store";
import { RECORD_SHARDS, legacyRecordPartitionKey, partPartitionKey, recordPartitionKey, recordShardPartitionKey, recordShardPartitionKeys, recordSortKey } from "../../../lambdas/adapters/dynamodb/records/keys";
import { DOC_PART_MAX_BYTES } from "../../../lambdas/adapters/dynamodb/records/record-items";
import { FAR_LEASE, runHoldingLock } from "../../builders/page-runs";
import { DynamoDbAuditStore } from "../../../lambdas/adapters/dynamodb/audits/dynamodb-audit-store";
import { createTestTable, testDynamoDbClient } from "../../support/dynamodb";
import { storedConnection } from "../../builders/stored-connections";
import { DynamoDbManagerStore } from "../../../lambdas/adapters/dynamodb/managers/dynamodb-manager-store";
import { ManagerAggregateBuilder } from "../../../lambdas/domain/analytics/aggregate-builder";

let client: DynamoDBClient;
let tableName: string;

beforeAll(async () => {
  client = testDynamoDbClient();
  tableName = await createTestTable(client);
});

afterAll(() => {
  client?.destroy();
});

const ACCOUNT = "acct-purge";
const DELETED_AT = Date.parse("2026-11-23T12:00:00.000Z");
const silent: Logger = { info: () => {}, warn: () => {}, error: () => {} };

const connection = (id: string) => storedConnection(id, { business_account_id: ACCOUNT });

function lead(id: string, text = ""): RecordWrite {
  return { collection: "leads", key: [id], doc: { id, name: `Lead ${id}`, notes: text, updated_at: "2026-11-20T00:00:00.000Z" } };
}

/** What a synced connection leaves in the table: records (one split into parts), stages, loss reasons, watermark, run summary and lock, rate-limit log, a preflight report, its figures, per-manager aggregates and an owner's link. */
async function syncedConnection(id: string, options: { readonly largeRecord: boolean; readonly moreLeads?: number }): Promise<void> {
  const connections = new DynamoDbConnectionStore({ client, tableName });
  const records = new DynamoDbRecordStore({ client, tableName });
  const runs = new DynamoDbRunStore({ client, tableName });
  await connections.put(connection(id));
  const run = await runHoldingLock(runs, id);
  await records.commitPage(
    run.page(
      {
        connectionId: id,
        records: [
          { collection: "pipelines", key: ["p1"], doc: { id: "p1", name: "Sales" } },
          { collection: "stages", key: ["p1", "s1"], doc: { id: "s1", pipeline_id: "p1", kind: "won" } },
        ],
      },
      "pipelines",
    ),
  );
  const leads = Array.from({ length: 12 + (options.moreLeads ?? 0) }, (_, i) => lead(`l${i}`));
  if (options.largeRecord) leads.push(lead("big", "x".repeat(DOC_PART_MAX_BYTES * 2 + 10)));
  await records.commitPage(
    run.page({
      connectionId: id,
      records: [{ collection: "loss_reasons", key: ["lr_1"], doc: { id: "lr_1", text: "price" } }, ...leads],
      watermark: { entity: "leads", value: "2026-11-20T00:00:00.000Z" },
    }),
  );
  await new DynamoDbRateLimiter({ client, tableName }).acquire(id, 1000);
  const managers = new DynamoDbManagerStore({ client, tableName });
  const figures = new ManagerAggregateBuilder(new Date(DELETED_AT));
  figures.addUser({ id: "u1" });
  for (const written of leads) figures.addLead({ ...written.doc, responsible_user_id: "u1", created_at: "2026-11-20T00:00:00.000Z" });
  await managers.saveSnapshot(id, figures.build("version-1"));
  await managers.setLink(id, "u1", "member-1", "2026-11-20T00:00:00.000Z");
  await client.send(
    new PutItemCommand({ TableName: tableName, Item: { pk: { S: preflightPartitionKey(id) }, sk: { S: "pf-1" }, doc: { S: "{}" } } }),
  );
  await client.send(new PutItemCommand({ TableName: tableName, Item: { pk: { S: figuresPartitionKey(id) }, sk: { S: FIGURES_SORT_KEY }, doc: { S: "{}" } } }));
}

const MOVED_LEADS = 6;

/** A connection whose leads moved between two syncs (observed transitions, HIST#), one move also reported by a stage event, and the change items of every commit (CHG#). */
async function movedLeads(id: string): Promise<void> {
  const records = new DynamoDbRecordStore({ client, tableName });
  const runs = new DynamoDbRunStore({ client, tableName });
  await new DynamoDbConnectionStore({ client, tableName }).put(connection(id));
  const at = (stage: string, updated: string) =>
    Array.from({ length: MOVED_LEADS }, (_, i): RecordWrite => ({ collection: "leads", key: [`m${i}`], doc: { id: `m${i}`, pipeline_id: "p1", stage_id: stage, updated_at: updated } }));
  const first = await runHoldingLock(runs, id, `run-20261120T000000000Z-${id}`);
  await records.commitPage(first.page({ connectionId: id, records: at("s1", "2026-11-20T00:00:00.000Z") }));
  await runs.finish(id, `run-20261120T000000000Z-${id}`, { status: "succeeded", finishedAt: "2026-11-20T00:10:00.000Z" });
  const second = await runHoldingLock(runs, id, `run-20261121T000000000Z-${id}`);
  await records.commitPage(second.page({ connectionId: id, records: at("s2", "2026-11-21T00:00:00.000Z") }));
  const event = { id: "e1", lead_id: "m0", type: "stage_changed", value_before: { value: "s1" }, value_after: { value: "s2" }, created_at: "2026-11-20T12:00:00.000Z" };
  await records.commitPage(second.page({ connectionId: id, records: [{ collection: "events", key: ["e1"], doc: event }] }, "events"));
}

/** Every item of the table that belongs to the connection, found without the purge's own key list. */
async function itemsOf(connectionId: string): Promise<Record<string, AttributeValue>[]> {
  const items: Record<string, AttributeValue>[] = [];
  const scan = { TableName: tableName, FilterExpression: "contains(pk, :id)", ExpressionAttributeValues: { ":id": { S: connectionId } }, ConsistentRead: true };
  for await (const page of paginateScan({ client }, scan)) items.push(...(page.Items ?? []));
  return items;
}

/** Invocations with a budget of 10 until the connection's purge is done (and no longer pending). */
async function purgeUntilDone(connectionId: string): Promise<void> {
  for (let invocation = 0; invocation < 20; invocation++) {
    if ((await purgeDeletedConnections(depsAt(DUE), { maxItems: 10 })).purged.includes(connectionId)) break;
  }
  expect(await pendingPurges()).not.toContain(connectionId);
}

async function pendingPurgeOf(connectionId: string): Promise<PendingPurge> {
  const pending = (await new DynamoDbPurgeQueue({ client, tableName }).due(new Date(DUE), 100)).find((purge) => purge.connectionId === connectionId);
  if (pending === undefined) throw new Error(`no pending purge of ${connectionId}`);
  return pending;
}

async function pendingPurges(): Promise<string[]> {
  const out = await client.send(
    new QueryCommand({
      TableName: tableName,
      KeyConditionExpression: "pk = :pk",
      ExpressionAttributeValues: { ":pk": { S: PURGE_PARTITION_KEY } },
      ConsistentRead: true,
    }),
  );
  return (out.Items ?? []).map((item) => item["connection_id"]?.S ?? "");
}

function depsAt(epochMs: number): PurgeDeps {
  return {
    purges: new DynamoDbPurgeQueue({ client, tableName }),
    connections: new DynamoDbConnectionStore({ client, tableName }),
    clock: { now: () => new Date(epochMs) },
    logger: silent,
  };
}

async function deleteConnection(id: string): Promise<void> {
  await new DynamoDbConnectionStore({ client, tableName, clock: { now: () => new Date(DELETED_AT) } }).delete(ACCOUNT, id);
}

const DUE = DELETED_AT + DELETED_CONNECTION_PURGE_DELAY_SECONDS * 1000;

// Each purge makes its calls one after the other: in whole-suite runs on the 2 cores, each waits for CPU, and the
// crash loop's test took 10-23 s (alone: 4 s). Room above that, not the default 30 s.
describe("purge of a deleted connection's data (DynamoDB Local)", { timeout: 90_000 }, () => {
  test("a deleted connection's data is kept for the purge delay, then the purge deletes all of it and nothing of another connection", async () => {
    const gone = `conn-${randomUUID()}`;
    const kept = `conn-${randomUUID()}`;
    await syncedConnection(gone, { largeRecord: true });
    await syncedConnection(kept, { largeRecord: true });
    const goneBefore = await itemsOf(gone);
    const keptBefore = await itemsOf(kept);
    expect(goneBefore.some((item) => item["pk"]?.S?.startsWith("PART#"))).toBe(true);
    expect(goneBefore.filter((item) => /^(MGR|LINK)#/.test(item["pk"]?.S ?? "")).length).toBeGreaterThan(3);

    await deleteConnection(gone);
    expect(await pendingPurges()).toContain(gone);

    const early = await purgeDeletedConnections(depsAt(DUE - 1000));
    expect(early.purged).toEqual([]);
    // Only the connection item itself went with the delete.
    expect((await itemsOf(gone)).length).toBe(goneBefore.length);

    const due = await purgeDeletedConnections(depsAt(DUE));
    expect(due.purged).toEqual([gone]);
    expect(due.itemsDeleted).toBe(goneBefore.length);
    expect(await itemsOf(gone)).toEqual([]);
    expect(await pendingPurges()).not.toContain(gone);
    expect((await itemsOf(kept)).length).toBe(keptBefore.length);
  });

  test("the purge is bounded per invocation and resumes where it stopped", async () => {
    const gone = `conn-${randomUUID()}`;
    await syncedConnection(gone, { largeRecord: false });
    const total = (await itemsOf(gone)).length;
    await deleteConnection(gone);

    // Three invocations or more: each reads every shard of every collection, so a tiny budget costs seconds, not rigour.
    const budget = Math.ceil(total / 3);
    expect(total).toBeGreaterThan(budget);
    const deletedPerInvocation: number[] = [];
    for (let invocation = 0; invocation < 20; invocation++) {
      const result = await purgeDeletedConnections(depsAt(DUE), { maxItems: budget });
      deletedPerInvocation.push(result.itemsDeleted);
      if (result.purged.includes(gone)) break;
      expect(result.unfinished).toEqual([gone]);
    }
    expect(Math.max(...deletedPerInvocation)).toBeLessThanOrEqual(budget);
    expect(deletedPerInvocation.reduce((a, b) => a + b, 0)).toBe(total);
    expect(deletedPerInvocation.length).toBeGreaterThanOrEqual(Math.ceil(total / budget));
    expect(await itemsOf(gone)).toEqual([]);
  });

  test("a purge cut short keeps the partition it stopped in (resume_from), and the next invocation starts there: it asks no partition it emptied before", async () => {
    const gone = `conn-${randomUUID()}`;
    await syncedConnection(gone, { largeRecord: false });
    await deleteConnection(gone);

    // Pipelines, stages and the loss reason's shard come before the leads: a budget of 10 stops among the leads.
    const first = await purgeDeletedConnections(depsAt(DUE), { maxItems: 10 });
    expect(first.unfinished).toContain(gone);
    const pending = await pendingPurgeOf(gone);
    expect(recordShardPartitionKeys(gone, "leads")).toContain(pending.resumeFrom);

    const asked: string[] = [];
    const recording = testDynamoDbClient();
    recording.middlewareStack.add(
      (next, context) => async (args) => {
        const input = args.input as { ExpressionAttributeValues?: Record<string, AttributeValue> };
        if (context.commandName === "QueryCommand") asked.push(input.ExpressionAttributeValues?.[":pk"]?.S ?? "");
        return next(args);
      },
      { step: "initialize" },
    );
    const second = await purgeDeletedConnections({ ...depsAt(DUE), purges: new DynamoDbPurgeQueue({ client: recording, tableName }) }, { maxItems: 10 });
    recording.destroy();
    expect(second.itemsDeleted).toBeGreaterThan(0);
    // Its first Query of a record partition is the one the first invocation stopped in, not the first shard.
    expect(asked.find((pk) => pk.startsWith("REC#"))).toBe(pending.resumeFrom);
    await purgeUntilDone(gone);
  });

  test("a purge resumed past the start ends with one walk from the start: a record written behind where it stopped is deleted before the purge is done", async () => {
    const gone = `conn-${randomUUID()}`;
    await syncedConnection(gone, { largeRecord: false });
    await deleteConnection(gone);
    expect((await purgeDeletedConnections(depsAt(DUE), { maxItems: 10 })).unfinished).toContain(gone);
    expect(recordShardPartitionKeys(gone, "leads")).toContain((await pendingPurgeOf(gone)).resumeFrom);

    // A late write into the connection's first partition, which the first invocation had already emptied.
    await client.send(
      new PutItemCommand({ TableName: tableName, Item: { pk: { S: recordShardPartitionKey(gone, "pipelines", 0) }, sk: { S: "late" }, doc: { S: "{}" } } }),
    );
    await purgeUntilDone(gone);
    expect(await itemsOf(gone)).toEqual([]);
  });

  test("a purge cut short never leaves a record part whose head is gone", async () => {
    const gone = `conn-${randomUUID()}`;
    await syncedConnection(gone, { largeRecord: true });
    await deleteConnection(gone);
    const bigHeadSk = recordSortKey(lead("big"));
    const bigParts = partPartitionKey(gone, "leads", bigHeadSk);

    // A crash before each delete call in turn: the purge dies there, and what it left must still name every part.
    for (let crashAt = 1; ; crashAt++) {
      const crashing = testDynamoDbClient();
      let deleteCalls = 0;
      crashing.middlewareStack.add(
        (next, context) => async (args) => {
          if (context.commandName === "BatchWriteItemCommand" && ++deleteCalls === crashAt) throw new Error("crash");
          return next(args);
        },
        { step: "initialize" },
      );
      const deps = { ...depsAt(DUE), purges: new DynamoDbPurgeQueue({ client: crashing, tableName }) };
      const finished = await purgeDeletedConnections(deps).then(
        (result) => result.purged.includes(gone),
        () => false,
      );
      crashing.destroy();
      const left = await itemsOf(gone);
      const headLeft = left.some((item) => item["pk"]?.S === recordPartitionKey(gone, "leads", bigHeadSk) && item["sk"]?.S === bigHeadSk);
      const partsLeft = left.some((item) => item["pk"]?.S === bigParts);
      if (partsLeft) expect(headLeft, `crash at delete call ${crashAt}: a part is left without the head that names it`).toBe(true);
      if (finished) break;
      expect(crashAt).toBeLessThan(50);
    }
    expect(await itemsOf(gone)).toEqual([]);
  });

  test("the purge deletes every shard of every collection and the unsharded layout's partitions, bounded and resumed", async () => {
    const gone = `conn-${randomUUID()}`;
    await syncedConnection(gone, { largeRecord: true, moreLeads: 88 });
    // What the release before sharding left: heads in the one partition of a collection.
    for (const [collection, sk] of [["leads", "old-1"], ["stages", '["p1","s-old"]']] as const) {
      await client.send(
        new PutItemCommand({ TableName: tableName, Item: { pk: { S: legacyRecordPartitionKey(gone, collection) }, sk: { S: sk }, doc: { S: "{}" } } }),
      );
    }
    const before = await itemsOf(gone);
    const leadKeys = new Set(before.filter((item) => item["pk"]?.S?.startsWith(`REC#${gone}#leads#`)).map((item) => item["pk"]?.S));
    expect(leadKeys.size).toBeGreaterThan(RECORD_SHARDS / 2);
    // The small collections' one shard (#00) holds their heads, and is purged with the rest.
    for (const collection of ["pipelines", "stages"] as const) {
      expect(before.some((item) => item["pk"]?.S === recordShardPartitionKey(gone, collection, 0))).toBe(true);
    }
    await deleteConnection(gone);

    let deleted = 0;
    for (let invocation = 0; invocation < 100; invocation++) {
      const result = await purgeDeletedConnections(depsAt(DUE), { maxItems: 25 });
      expect(result.itemsDeleted).toBeLessThanOrEqual(25);
      deleted += result.itemsDeleted;
      if (result.purged.includes(gone)) break;
    }
    expect(await itemsOf(gone)).toEqual([]);
    expect(deleted).toBe(before.length);
  });

  test("the purge deletes each audit's returned ids (AUDITSEEN# rows) with the connection's other rows, also when cut short before its run partition", async () => {
    const gone = `conn-${randomUUID()}`;
    await syncedConnection(gone, { largeRecord: false });
    const runs = new DynamoDbRunStore({ client, tableName });
    const audits = new DynamoDbAuditStore({ client, tableName });
    await runs.finish(gone, `run-${gone}`, { status: "succeeded", finishedAt: "2026-11-20T00:10:00.000Z" });
    // Two audits, each with the ids two of its pages returned: what an audit keeps until its TTL (7 days) ends it.
    for (const auditId of ["audit-20261120T010000000Z-aaaaaa", "audit-20261121T010000000Z-bbbbbb"]) {
      await runs.begin({ connectionId: gone, runId: auditId, startedAt: "2026-11-21T01:00:00.000Z", leaseUntil: FAR_LEASE });
      await audits.rememberReturned(gone, auditId, "leads", 1, ["l1", "l2"], "2026-11-21T01:00:01.000Z");
      await audits.rememberReturned(gone, auditId, "contacts", 1, ["c1"], "2026-11-21T01:00:02.000Z");
      await runs.finish(gone, auditId, { status: "succeeded", finishedAt: "2026-11-21T01:10:00.000Z" });
    }
    const before = await itemsOf(gone);
    expect(before.filter((item) => item["pk"]?.S?.startsWith("AUDITSEEN#"))).toHaveLength(4);
    await deleteConnection(gone);

    // Small budgets, so that invocations stop between the returned ids and the run partition that names the audits.
    let deleted = 0;
    for (let invocation = 0; invocation < 100; invocation++) {
      const result = await purgeDeletedConnections(depsAt(DUE), { maxItems: 8 });
      deleted += result.itemsDeleted;
      if (result.purged.includes(gone)) break;
    }
    expect(await itemsOf(gone)).toEqual([]);
    expect(deleted).toBe(before.length);
  });

  test("a purge leaves no stage transition (HIST#) or change item (CHG#) of the deleted connection, and another connection's stay", async () => {
    const gone = `conn-${randomUUID()}`;
    const kept = `conn-${randomUUID()}`;
    for (const id of [gone, kept]) await movedLeads(id);
    const byKind = (items: Record<string, AttributeValue>[], prefix: string) => items.filter((item) => item["pk"]?.S?.startsWith(prefix)).length;
    const keptBefore = await itemsOf(kept);
    const goneBefore = await itemsOf(gone);
    // Observed moves in more than one shard, a reported one from a stage event, and a change item per commit.
    expect(new Set(goneBefore.filter((item) => item["pk"]?.S?.startsWith("HIST#")).map((item) => item["pk"]?.S)).size).toBeGreaterThan(1);
    expect(byKind(goneBefore, "HIST#")).toBe(MOVED_LEADS + 1);
    expect(byKind(goneBefore, "CHG#")).toBeGreaterThanOrEqual(3);
    await deleteConnection(gone);

    // A small budget, so that invocations stop inside the history shards and the change partition.
    for (let invocation = 0; invocation < 100; invocation++) {
      if ((await purgeDeletedConnections(depsAt(DUE), { maxItems: 5 })).purged.includes(gone)) break;
    }
    const left = await itemsOf(gone);
    expect([byKind(left, "HIST#"), byKind(left, "CHG#"), left.length]).toEqual([0, 0, 0]);
    const keptAfter = await itemsOf(kept);
    expect(keptAfter).toHaveLength(keptBefore.length);
    expect([byKind(keptAfter, "HIST#"), byKind(keptAfter, "CHG#")]).toEqual([byKind(keptBefore, "HIST#"), byKind(keptBefore, "CHG#")]);
  });

  test("a purge never deletes the data of a connection that exists (its delete failed after queueing the purge)", async () => {
    const id = `conn-${randomUUID()}`;
    await syncedConnection(id, { largeRecord: false });
    await deleteConnection(id);
    // The delete's last step did not happen: the connection is there again, as it would be.
    await new DynamoDbConnectionStore({ client, tableName }).put(connection(id));
    const before = (await itemsOf(id)).length;

    const result = await purgeDeletedConnections(depsAt(DUE));

    expect(result.kept).toContain(id);
    expect(result.purged).not.toContain(id);
    expect((await itemsOf(id)).length).toBe(before);
    expect(await pendingPurges()).not.toContain(id);
  });
});
