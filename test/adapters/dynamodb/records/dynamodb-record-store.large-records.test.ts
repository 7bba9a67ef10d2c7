import { randomUUID } from "node:crypto";
import { paginateQuery, type DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { describe, expect, test } from "vitest";
import type { PageWrite, RecordWrite } from "../../../../lambdas/domain/core/ports/record-store";
import { DynamoDbAuditStore } from "../../../../lambdas/adapters/dynamodb/audits/dynamodb-audit-store";
import { DynamoDbRecordStore } from "../../../../lambdas/adapters/dynamodb/records/dynamodb-record-store";
import { DynamoDbRecordScan } from "../../../../lambdas/adapters/dynamodb/records/record-scan";
import { DynamoDbRunStore } from "../../../../lambdas/adapters/dynamodb/runs/dynamodb-run-store";
import { partPartitionKey, stagedPartPrefix } from "../../../../lambdas/adapters/dynamodb/records/keys";
import { planPage } from "../../../../lambdas/adapters/dynamodb/records/page-transactions";
import { fencedPages } from "../../../builders/page-runs";
import { testDynamoDbClient, useTestTable } from "../../../support/dynamodb";
import { clientFailingTransactions } from "../../../support/failing-transactions";

/**
 * A record too large for one DynamoDB transaction (the spec never cuts task
 * text; a body may be 16 MiB) is stored whole: its parts are staged first,
 * under a version only its head names, and it appears when the page's
 * transaction that writes its head commits, with the watermark.
 */

const table = useTestTable();
const store = new DynamoDbRecordStore(table);

const fenced = fencedPages(() => new DynamoDbRunStore(table));
const newConnection = () => `conn-${randomUUID()}`;
const task = (id: string, text: string): RecordWrite => ({ collection: "tasks", key: [id], doc: { id, text, lead_id: null, contact_id: null, is_completed: false } });
const tasksPage = (connectionId: string, records: RecordWrite[], watermark: string): Omit<PageWrite, "run"> => ({ connectionId, records, watermark: { entity: "tasks", value: watermark } });

/** The sort keys of every part item a record has, staged or not. */
async function partKeys(connectionId: string, id: string): Promise<string[]> {
  const keys: string[] = [];
  const query = { TableName: table.tableName, KeyConditionExpression: "pk = :pk", ExpressionAttributeValues: { ":pk": { S: partPartitionKey(connectionId, "tasks", id) } }, ProjectionExpression: "sk", ConsistentRead: true };
  for await (const page of paginateQuery({ client: table.client }, query)) keys.push(...(page.Items ?? []).map((item) => item["sk"]!.S!));
  return keys;
}

describe("a record of any size is stored whole, and appears with its page", () => {
  test("a record is stored whole at any size: a 4 MB task text round-trips exactly with the records around it, through every reader", async () => {
    const connectionId = newConnection();
    const text = `${"é".repeat(1_000_000)}${"x".repeat(2_000_000)}😀`;
    await store.commitPage(await fenced(tasksPage(connectionId, [task("t-before", "ok"), task("t-big", text), task("t-after", "ok")], "2024-07-01T00:00:00.000Z")));

    expect((await store.getRecord(connectionId, "tasks", ["t-big"])).record?.["text"] === text).toBe(true);
    const listed = (await store.listRecords(connectionId, "tasks", { limit: 10 })).records;
    expect(listed.map((doc) => doc["id"]).sort()).toEqual(["t-after", "t-before", "t-big"]);
    expect(listed.find((doc) => doc["id"] === "t-big")?.["text"] === text).toBe(true);
    // What the figures and the per-manager refresh read: the unordered scan.
    const scanned: Readonly<Record<string, unknown>>[] = [];
    await new DynamoDbRecordScan(table, store).scan(connectionId, "tasks", (docs) => scanned.push(...docs));
    expect(scanned.map((doc) => doc["id"]).sort()).toEqual(["t-after", "t-before", "t-big"]);
    expect(scanned.find((doc) => doc["id"] === "t-big")?.["text"] === text).toBe(true);
    // What an audit and explain read: the same document.
    const audits = new DynamoDbAuditStore(table);
    expect((await audits.recordTrace(connectionId, "tasks", ["t-big"])).doc?.["text"] === text).toBe(true);
    expect((await audits.storedVersions(connectionId, "tasks", ["t-big"])).get("t-big")?.doc === JSON.stringify(task("t-big", text).doc)).toBe(true);
    expect(await store.getWatermark(connectionId, "tasks")).toBe("2024-07-01T00:00:00.000Z");
  });

  test("a record is stored whole at any size: a crash after its parts are staged leaves nothing visible and the watermark unmoved; the replay completes it", async () => {
    const connectionId = newConnection();
    await store.commitPage(await fenced(tasksPage(connectionId, [task("t-old", "ok")], "2024-01-01T00:00:00.000Z")));
    const page = await fenced(tasksPage(connectionId, [task("t-small", "ok"), task("t-big", "b".repeat(5_000_000))], "2024-06-01T00:00:00.000Z"));
    const plan = planPage(table.tableName, page);
    const stagingTransactions = plan.transactions.length - 1;
    expect(stagingTransactions).toBeGreaterThan(1);

    // Every staging transaction commits; the page's own transaction (head, watermark) fails.
    const failing = clientFailingTransactions(stagingTransactions + 1, "from");
    await expect(new DynamoDbRecordStore({ client: failing, tableName: table.tableName }).commitPage(page)).rejects.toThrow("injected failure");
    failing.destroy();
    const { version } = plan.staged[0]!;
    expect((await partKeys(connectionId, "t-big")).every((sk) => sk.startsWith(stagedPartPrefix(version)))).toBe(true);
    expect((await store.getRecord(connectionId, "tasks", ["t-big"])).record).toBeNull();
    expect((await store.getRecord(connectionId, "tasks", ["t-small"])).record).toBeNull();
    expect(await store.getWatermark(connectionId, "tasks")).toBe("2024-01-01T00:00:00.000Z");

    await store.commitPage(page);
    expect((await store.getRecord(connectionId, "tasks", ["t-big"])).record?.["text"] === "b".repeat(5_000_000)).toBe(true);
    expect(await store.getWatermark(connectionId, "tasks")).toBe("2024-06-01T00:00:00.000Z");
  });

  test("a record is stored whole at any size: a new version replaces the old one's parts, and the parts of a version never committed go too", async () => {
    const connectionId = newConnection();
    const versions = ["c".repeat(4_500_000), "d".repeat(6_000_000)];
    // A page that staged a version and then died: its parts are left behind, named by no head.
    const abandoned = await fenced(tasksPage(connectionId, [task("t-big", "a".repeat(4_200_000))], "2024-02-01T00:00:00.000Z"));
    const failing = clientFailingTransactions(planPage(table.tableName, abandoned).transactions.length, "from");
    await expect(new DynamoDbRecordStore({ client: failing, tableName: table.tableName }).commitPage(abandoned)).rejects.toThrow("injected failure");
    failing.destroy();

    for (const [index, text] of versions.entries()) {
      const page = await fenced(tasksPage(connectionId, [task("t-big", text)], `2024-0${index + 3}-01T00:00:00.000Z`));
      await store.commitPage(page);
      const { version } = planPage(table.tableName, page).staged[0]!;
      const keys = await partKeys(connectionId, "t-big");
      expect(keys.length).toBe(Math.ceil(Buffer.byteLength(JSON.stringify(task("t-big", text).doc)) / 350_000) - 1);
      expect(keys.every((sk) => sk.startsWith(stagedPartPrefix(version)))).toBe(true);
      expect((await store.getRecord(connectionId, "tasks", ["t-big"])).record?.["text"] === text).toBe(true);
    }
  });
});
