import { randomUUID } from "node:crypto";
import { PutItemCommand, QueryCommand } from "@aws-sdk/client-dynamodb";
import { describe, expect, test } from "vitest";
import { TTL_ATTRIBUTE } from "../../../../lib/record-table";
import { DELETED_CONNECTION_RETENTION_SECONDS } from "../../../../lambdas/adapters/dynamodb/connections/connection-keys";
import { DynamoDbConnectionStore } from "../../../../lambdas/adapters/dynamodb/connections/dynamodb-connection-store";
import { DynamoDbRunStore } from "../../../../lambdas/adapters/dynamodb/runs/dynamodb-run-store";
import { LOCK_SORT_KEY, runLockPartitionKey } from "../../../../lambdas/adapters/dynamodb/runs/run-item/run-keys";
import { watermarkPartitionKey, watermarkSortKey } from "../../../../lambdas/adapters/dynamodb/records/keys";
import { readItem, useTestTable } from "../../../support/dynamodb";
import { storedConnection } from "../../../builders/stored-connections";

const table = useTestTable();

const ACCOUNT = "acct-retention";
const DELETED_AT_MS = Date.parse("2026-11-23T11:50:00.500Z");
const DELETED_AT_S = Math.floor(DELETED_AT_MS / 1000);

const connection = (id: string) => storedConnection(id, { business_account_id: ACCOUNT });

async function putWatermark(connectionId: string, entity: "leads" | "users", value: string) {
  await table.client.send(
    new PutItemCommand({
      TableName: table.tableName,
      Item: { pk: { S: watermarkPartitionKey(connectionId) }, sk: { S: watermarkSortKey(entity) }, value: { S: value } },
    }),
  );
}

async function watermarkItems(connectionId: string) {
  const out = await table.client.send(
    new QueryCommand({
      TableName: table.tableName,
      KeyConditionExpression: "pk = :pk",
      ExpressionAttributeValues: { ":pk": { S: watermarkPartitionKey(connectionId) } },
      ConsistentRead: true,
    }),
  );
  return out.Items ?? [];
}

const lockItem = (connectionId: string) => readItem(table, runLockPartitionKey(connectionId), LOCK_SORT_KEY);

describe("a deleted connection's data (DynamoDB TTL, DynamoDB Local)", () => {
  test("deleting a connection marks its watermarks and run lock to expire one day later; another connection's are untouched", async () => {
    const store = new DynamoDbConnectionStore({ client: table.client, tableName: table.tableName, clock: { now: () => new Date(DELETED_AT_MS) } });
    const runs = new DynamoDbRunStore(table);
    const gone = `conn-${randomUUID()}`;
    const kept = `conn-${randomUUID()}`;
    for (const id of [gone, kept]) {
      await store.put(connection(id));
      await putWatermark(id, "leads", "2026-11-20T00:00:00.000Z");
      await putWatermark(id, "users", "2026-11-21T00:00:00.000Z");
      await runs.begin({ connectionId: id, runId: "20261123T114500000Z-aaaaaa", startedAt: "2026-11-23T11:45:00.000Z", leaseUntil: "2026-11-23T12:00:00.000Z" });
    }

    await store.delete(ACCOUNT, gone);

    expect(await store.get(ACCOUNT, gone)).toBeNull();
    const expected = String(DELETED_AT_S + DELETED_CONNECTION_RETENTION_SECONDS);
    const marked = await watermarkItems(gone);
    expect(marked.map((item) => [item["sk"]?.S, item[TTL_ATTRIBUTE]?.N, item["value"]?.S])).toEqual([
      [watermarkSortKey("leads"), expected, "2026-11-20T00:00:00.000Z"],
      [watermarkSortKey("users"), expected, "2026-11-21T00:00:00.000Z"],
    ]);
    const lock = await lockItem(gone);
    expect(lock?.[TTL_ATTRIBUTE]?.N).toBe(expected);
    expect(lock?.["runId"]?.S).toBe("20261123T114500000Z-aaaaaa");
    // One day is far beyond any lease (15 minutes): a run still holding the lock is never freed by the TTL.
    expect(DELETED_CONNECTION_RETENTION_SECONDS).toBe(86_400);

    expect((await watermarkItems(kept)).every((item) => item[TTL_ATTRIBUTE] === undefined)).toBe(true);
    expect((await lockItem(kept))?.[TTL_ATTRIBUTE]).toBeUndefined();
  });

  test("deleting a connection with no watermarks and no lock writes no item (no stub lock is created)", async () => {
    const store = new DynamoDbConnectionStore({ client: table.client, tableName: table.tableName, clock: { now: () => new Date(DELETED_AT_MS) } });
    const id = `conn-${randomUUID()}`;
    await store.put(connection(id));

    await store.delete(ACCOUNT, id);
    await store.delete(ACCOUNT, `conn-${randomUUID()}`); // unknown: still a no-op

    expect(await lockItem(id)).toBeUndefined();
    expect(await watermarkItems(id)).toEqual([]);
  });
});
