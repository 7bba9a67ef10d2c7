import { randomUUID } from "node:crypto";
import { PutItemCommand, QueryCommand, paginateScan, type AttributeValue } from "@aws-sdk/client-dynamodb";
import { expect } from "vitest";
import { DynamoDbConnectionStore } from "../../../lambdas/adapters/dynamodb/connections/dynamodb-connection-store";
import { createMemoryLogger } from "../../../lambdas/adapters/local/json-logger";
import type { RecordWrite } from "../../../lambdas/domain/core/ports/record-store";
import { preflightPartitionKey } from "../../../lambdas/adapters/dynamodb/preflight-runs/preflight-keys";
import { FIGURES_SORT_KEY, figuresPartitionKey } from "../../../lambdas/adapters/dynamodb/figures/figures-keys";
import { DELETED_CONNECTION_PURGE_DELAY_SECONDS, PURGE_ATTR, PURGE_PARTITION_KEY } from "../../../lambdas/adapters/dynamodb/purges/purge-keys";
import type { PendingPurge } from "../../../lambdas/domain/retention/purge-queue";
import { DynamoDbPurgeQueue } from "../../../lambdas/adapters/dynamodb/purges/dynamodb-purge-queue";
import { DynamoDbRateLimiter } from "../../../lambdas/adapters/dynamodb/rate-limit/dynamodb-rate-limiter";
import { purgeDeletedConnections, type PurgeDeps } from "../../../lambdas/domain/retention/purge-deleted-connections";
import { DynamoDbRunStore } from "../../../lambdas/adapters/dynamodb/runs/dynamodb-run-store";
import { DynamoDbRecordStore } from "../../../lambdas/adapters/dynamodb/records/dynamodb-record-store";
import { DOC_PART_MAX_BYTES } from "../../../lambdas/adapters/dynamodb/records/record-items";
import { runHoldingLock } from "../../builders/page-runs";
import { testDynamoDbClient, type TestTable } from "../../support/dynamodb";
import { storedConnection } from "../../builders/stored-connections";
import { DynamoDbManagerStore } from "../../../lambdas/adapters/dynamodb/managers/dynamodb-manager-store";
import { ManagerAggregateBuilder } from "../../../lambdas/domain/analytics/aggregate-builder";

export const ACCOUNT = "acct-purge";
/** When the fixture's connections are deleted; their purges are due DUE on. */
export const DELETED_AT = Date.parse("2026-11-23T12:00:00.000Z");
export const DUE = DELETED_AT + DELETED_CONNECTION_PURGE_DELAY_SECONDS * 1000;
/** How many leads movedLeads moves. */
export const MOVED_LEADS = 6;

/** The purge tests' world (purge-deleted-connections.test.ts, purge-resume.test.ts): deleted connections in the file's own table, and the purge's view of them. */
export function deletedConnectionFixture(table: TestTable) {
  const { client, tableName } = table;

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

  /** A synced connection (no large record), deleted: its purge is pending. */
  async function deletedSyncedConnection(): Promise<string> {
    const id = `conn-${randomUUID()}`;
    await syncedConnection(id, { largeRecord: false });
    await deleteConnection(id);
    return id;
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

  /** A purge queue on a client of its own that notes the partition key of each Query it sends, in order. */
  function queryRecordingQueue(): { readonly asked: string[]; readonly purges: DynamoDbPurgeQueue; close(): void } {
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
    return { asked, purges: new DynamoDbPurgeQueue({ client: recording, tableName }), close: () => recording.destroy() };
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
    return (out.Items ?? []).map((item) => item[PURGE_ATTR.connectionId]?.S ?? "");
  }

  function depsAt(epochMs: number): PurgeDeps {
    return {
      purges: new DynamoDbPurgeQueue({ client, tableName }),
      connections: new DynamoDbConnectionStore({ client, tableName }),
      clock: { now: () => new Date(epochMs) },
      logger: createMemoryLogger(),
    };
  }

  async function deleteConnection(id: string): Promise<void> {
    await new DynamoDbConnectionStore({ client, tableName, clock: { now: () => new Date(DELETED_AT) } }).delete(ACCOUNT, id);
  }

  return { connection, lead, syncedConnection, movedLeads, itemsOf, deletedSyncedConnection, purgeUntilDone, pendingPurgeOf, queryRecordingQueue, pendingPurges, depsAt, deleteConnection };
}
