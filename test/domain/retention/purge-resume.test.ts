import { PutItemCommand } from "@aws-sdk/client-dynamodb";
import { describe, expect, test } from "vitest";
import { DynamoDbPurgeQueue } from "../../../lambdas/adapters/dynamodb/purges/dynamodb-purge-queue";
import { purgeDeletedConnections } from "../../../lambdas/domain/retention/purge-deleted-connections";
import { runPartitionKey } from "../../../lambdas/adapters/dynamodb/runs/run-item/run-keys";
import { recordShardPartitionKey, recordShardPartitionKeys } from "../../../lambdas/adapters/dynamodb/records/keys";
import { useTestTable } from "../../support/dynamodb";
import { DUE, deletedConnectionFixture } from "./deleted-connection-fixture";

const table = useTestTable();
const { client, tableName } = table;
const { itemsOf, deletedSyncedConnection, purgeUntilDone, pendingPurgeOf, queryRecordingQueue, pendingPurges, depsAt } = deletedConnectionFixture(table);

/** Where an unfinished purge stopped (the pending purge's resume_from) and how the next invocation goes on from there (docs/retention.md). */
describe("a purge resumed where it stopped (DynamoDB Local)", { timeout: 90_000 }, () => {
  test("a purge cut short keeps the partition it stopped in (resume_from), and the next invocation starts there: it asks no partition it emptied before", async () => {
    const gone = await deletedSyncedConnection();

    // Pipelines, stages and the loss reason's shard come before the leads: a budget of 10 stops among the leads.
    const first = await purgeDeletedConnections(depsAt(DUE), { maxItems: 10 });
    expect(first.unfinished).toContain(gone);
    const pending = await pendingPurgeOf(gone);
    expect(recordShardPartitionKeys(gone, "leads")).toContain(pending.resumeFrom);

    const { asked, purges, close } = queryRecordingQueue();
    const second = await purgeDeletedConnections({ ...depsAt(DUE), purges }, { maxItems: 10 });
    close();
    expect(second.itemsDeleted).toBeGreaterThan(0);
    // Its first Query of a record partition is the one the first invocation stopped in, not the first shard.
    expect(asked.find((pk) => pk.startsWith("REC#"))).toBe(pending.resumeFrom);
    await purgeUntilDone(gone);
  });

  test("a resume_from that names none of the connection's partitions starts the walk at its first partition", async () => {
    const gone = await deletedSyncedConnection();
    const pending = await pendingPurgeOf(gone);

    const { asked, purges, close } = queryRecordingQueue();
    const step = await purges.purgeSome({ ...pending, resumeFrom: "REC#no-such-partition" }, 5);
    close();
    expect(step.done).toBe(false);
    // The run partition first (the audits' ids, which name partitions of the list), then the list's first partition.
    expect(asked.slice(0, 2)).toEqual([runPartitionKey(gone), recordShardPartitionKeys(gone, "pipelines")[0]]);
    await purgeUntilDone(gone);
  });

  test("remember never makes a pending purge: where a purge no longer pending stopped is not kept", async () => {
    const gone = await deletedSyncedConnection();
    const pending = await pendingPurgeOf(gone);
    await purgeUntilDone(gone);

    const before = await pendingPurges();
    await new DynamoDbPurgeQueue({ client, tableName }).remember(pending, recordShardPartitionKeys(gone, "leads")[3]!);
    // An UpdateItem without its condition would make an item of the queue with no connection in it.
    expect(await pendingPurges()).toEqual(before);
  });

  test("a purge resumed past the start ends with one walk from the start: a record written behind where it stopped is deleted before the purge is done", async () => {
    const gone = await deletedSyncedConnection();
    expect((await purgeDeletedConnections(depsAt(DUE), { maxItems: 10 })).unfinished).toContain(gone);
    expect(recordShardPartitionKeys(gone, "leads")).toContain((await pendingPurgeOf(gone)).resumeFrom);

    // A late write into the connection's first partition, which the first invocation had already emptied.
    await client.send(
      new PutItemCommand({ TableName: tableName, Item: { pk: { S: recordShardPartitionKey(gone, "pipelines", 0) }, sk: { S: "late" }, doc: { S: "{}" } } }),
    );
    await purgeUntilDone(gone);
    expect(await itemsOf(gone)).toEqual([]);
  });
});
