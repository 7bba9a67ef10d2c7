import { randomUUID } from "node:crypto";
import { PutItemCommand, type AttributeValue } from "@aws-sdk/client-dynamodb";
import { describe, expect, test } from "vitest";
import { DynamoDbConnectionStore } from "../../../lambdas/adapters/dynamodb/connections/dynamodb-connection-store";
import { DynamoDbPurgeQueue } from "../../../lambdas/adapters/dynamodb/purges/dynamodb-purge-queue";
import { purgeDeletedConnections } from "../../../lambdas/domain/retention/purge-deleted-connections";
import { DynamoDbRunStore } from "../../../lambdas/adapters/dynamodb/runs/dynamodb-run-store";
import { RECORD_SHARDS, legacyRecordPartitionKey, partPartitionKey, recordPartitionKey, recordShardPartitionKey, recordSortKey } from "../../../lambdas/adapters/dynamodb/records/keys";
import { FAR_LEASE } from "../../builders/page-runs";
import { DynamoDbAuditStore } from "../../../lambdas/adapters/dynamodb/audits/dynamodb-audit-store";
import { testDynamoDbClient, useTestTable } from "../../support/dynamodb";
import { DUE, MOVED_LEADS, deletedConnectionFixture } from "./deleted-connection-fixture";

const table = useTestTable();
const { client, tableName } = table;
const { connection, lead, syncedConnection, movedLeads, itemsOf, pendingPurges, depsAt, deleteConnection } = deletedConnectionFixture(table);

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
