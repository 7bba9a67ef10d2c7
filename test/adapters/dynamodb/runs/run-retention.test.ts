import { randomUUID } from "node:crypto";
import { UpdateItemCommand } from "@aws-sdk/client-dynamodb";
import { describe, expect, test } from "vitest";
import { TTL_ATTRIBUTE } from "../../../../lib/record-table";
import { DynamoDbRunStore } from "../../../../lambdas/adapters/dynamodb/runs/dynamodb-run-store";
import { LOCK_SORT_KEY, RUN_ATTR, RUN_RETENTION_DAYS, runLockPartitionKey, runPartitionKey, runSortKey } from "../../../../lambdas/adapters/dynamodb/runs/run-item/run-keys";
import { readItem, useTestTable } from "../../../support/dynamodb";

const table = useTestTable();
const store = new DynamoDbRunStore(table);


const STARTED_AT = "2026-11-21T16:18:00.123Z";
const STARTED_S = Math.floor(Date.parse(STARTED_AT) / 1000);
const DAY_S = 86_400;

const rawItem = (pk: string, sk: string) => readItem(table, pk, sk);

function begin(connectionId: string, runId: string) {
  return store.begin({ connectionId, runId, startedAt: STARTED_AT, leaseUntil: "2026-11-21T16:23:00.123Z" });
}

describe("run retention (DynamoDB TTL, DynamoDB Local)", () => {
  test("the run store writes the table's TTL attribute, and the retention is 90 days", () => {
    expect(RUN_ATTR.expiresAt).toBe(TTL_ATTRIBUTE);
    expect(RUN_RETENTION_DAYS).toBe(90);
  });

  test("a run summary expires 90 days after it started; the lock never carries expires_at", async () => {
    const connectionId = `conn-${randomUUID()}`;
    const runId = "20261121T161800123Z-aaaaaa";
    expect(await begin(connectionId, runId)).toEqual({ started: true });

    const summary = await rawItem(runPartitionKey(connectionId), runSortKey(runId));
    expect(summary?.[TTL_ATTRIBUTE]?.N).toBe(String(STARTED_S + 90 * DAY_S));
    const lock = await rawItem(runLockPartitionKey(connectionId), LOCK_SORT_KEY);
    expect(lock).toBeDefined();
    expect(lock?.[TTL_ATTRIBUTE]).toBeUndefined();

    await store.setExecution(connectionId, runId, "arn:exec");
    await store.heartbeat(connectionId, runId, "2026-11-21T16:28:00.123Z");
    await store.handOver(connectionId, runId, "2026-11-21T16:33:00.123Z");
    expect((await rawItem(runLockPartitionKey(connectionId), LOCK_SORT_KEY))?.[TTL_ATTRIBUTE]).toBeUndefined();
  });

  test("a finished run keeps the expiry it got when it started (90 days after the start, in epoch seconds)", async () => {
    const connectionId = `conn-${randomUUID()}`;
    const runId = "20261121T161800123Z-bbbbbb";
    await begin(connectionId, runId);
    await store.finish(connectionId, runId, { status: "succeeded", finishedAt: "2026-11-23T10:00:00.000Z" });

    const summary = await rawItem(runPartitionKey(connectionId), runSortKey(runId));
    expect(summary?.[RUN_ATTR.status]?.S).toBe("succeeded");
    expect(summary?.[TTL_ATTRIBUTE]?.N).toBe(String(STARTED_S + 90 * DAY_S));
    expect(await rawItem(runLockPartitionKey(connectionId), LOCK_SORT_KEY)).toBeUndefined();
  });

  test("a run summary written before retention existed gets an expiry when it finishes (90 days after finishing)", async () => {
    const connectionId = `conn-${randomUUID()}`;
    const runId = "20261121T161800123Z-cccccc";
    await begin(connectionId, runId);
    // The item as the store wrote it before this change: no expires_at.
    await table.client.send(
      new UpdateItemCommand({
        TableName: table.tableName,
        Key: { pk: { S: runPartitionKey(connectionId) }, sk: { S: runSortKey(runId) } },
        UpdateExpression: "REMOVE #ttl",
        ExpressionAttributeNames: { "#ttl": TTL_ATTRIBUTE },
      }),
    );
    const finishedAt = "2026-11-23T10:00:00.000Z";
    await store.finish(connectionId, runId, { status: "failed", finishedAt });

    const summary = await rawItem(runPartitionKey(connectionId), runSortKey(runId));
    expect(summary?.[TTL_ATTRIBUTE]?.N).toBe(String(Date.parse(finishedAt) / 1000 + 90 * DAY_S));
  });
});
