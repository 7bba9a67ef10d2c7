import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { METRIC, type MetricDimensions, type MetricName } from "../../../lambdas/domain/core/metric-names";
import type { StartSyncDeps } from "../../../lambdas/domain/sync/sync-deps";
import { makeSyncHandlers } from "../../../lambdas/handlers/sync/sync-handlers";
import { startSync } from "../../../lambdas/domain/sync/start-sync";
import { DynamoDbRecordStore } from "../../../lambdas/adapters/dynamodb/records/dynamodb-record-store";
import { CountingMetrics } from "../../../lambdas/adapters/local/counting-metrics";
import { leadRecord } from "../../builders/source-records";
import { minuteStamp, smallCrm } from "../../builders/small-crm";
import { crmSource, type CrmData } from "../../support/crm-source";
import { testDynamoDbClient } from "../../support/dynamodb";
import { startSourceServer, type SourceReply, type SourceRequest, type SourceServer } from "../../support/source-server";
import { createSyncHarness, entityRow, type SyncHarness } from "../../support/sync-harness";
import { failFirst } from "../../support/source-faults";

/**
 * The metrics the sync emits, counted by the local adapter, on the real
 * definition, a loopback source and DynamoDB Local. Tests run one after the
 * other on one harness and read what each run added (deltas).
 */

const TOKEN = "metrics-token-8c1e77";
let harness: SyncHarness;
const servers: SourceServer[] = [];
const clients: Array<{ destroy(): void }> = [];

beforeAll(async () => {
  harness = await createSyncHarness({ timeScale: 0.01 });
});
afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
  for (const client of clients) client.destroy();
  await harness.close();
});

/** The small CRM with a third lead, and no tasks, calls or events (they answer 404: optional, no page). */
function metricsCrm(): CrmData {
  const { tasks: _tasks, calls: _calls, events: _events, ...required } = smallCrm();
  return { ...required, leads: [...required.leads, leadRecord({ id: "l3", pipeline_id: "p1", stage_id: "open", updated_at: minuteStamp(3) })] };
}

/** Runs one sync against a fresh source and returns its summary and what the run added to each metric. */
async function syncCounting(fault?: (request: SourceRequest) => SourceReply | undefined) {
  const before = new CountingMetrics();
  for (const counted of harness.metrics.all()) before.count(counted.name, counted.value, counted.dimensions);
  const server = await startSourceServer(crmSource(metricsCrm, { token: TOKEN, ...(fault === undefined ? {} : { fault }) }));
  servers.push(server);
  const connection = await harness.addConnection({ baseUrl: server.baseUrl, token: TOKEN });
  const summary = await harness.sync(connection);
  const added = (name: MetricName, where: MetricDimensions = {}) => harness.metrics.sum(name, where) - before.sum(name, where);
  return { summary, added };
}

describe("sync metrics (local adapter)", () => {
  test("a committed page counts PagesSynced and RecordsSynced under its entity; a finished run counts RunsSucceeded", async () => {
    const { summary, added } = await syncCounting();
    expect(summary.status).toBe("succeeded");
    expect(added(METRIC.pagesSynced, { entity: "leads" })).toBe(1);
    expect(added(METRIC.recordsSynced, { entity: "leads" })).toBe(3);
    expect(added(METRIC.recordsSynced, { entity: "users" })).toBe(2);
    expect(added(METRIC.recordsSynced, { entity: "pipelines" })).toBe(1);
    expect(added(METRIC.recordsSynced, { entity: "stages" })).toBe(2);
    // Four entities with one page each; tasks, calls and events answer 404 (optional, no page committed).
    expect(added(METRIC.pagesSynced)).toBe(4);
    expect(added(METRIC.runsSucceeded)).toBe(1);
    expect(added(METRIC.runsFailed)).toBe(0);
    expect(added(METRIC.entityFailures)).toBe(0);
    // No id is ever a dimension: only entity, error_class and fault.
    for (const counted of harness.metrics.all()) {
      expect(Object.keys(counted.dimensions).every((key) => ["entity", "error_class", "fault"].includes(key))).toBe(true);
    }
  });

  test("a 429 counts PagesThrottled under its entity; the retried page then counts as synced", async () => {
    const { summary, added } = await syncCounting(failFirst("/users", 1, { status: 429, headers: { "retry-after": "1" }, json: { error: "slow down" } }));
    expect(entityRow(summary, "users")?.status).toBe("succeeded");
    expect(added(METRIC.pagesThrottled, { entity: "users" })).toBe(1);
    expect(added(METRIC.pagesThrottled)).toBe(1);
    expect(added(METRIC.pagesSynced, { entity: "users" })).toBe(1);
    expect(added(METRIC.entityFailures)).toBe(0);
  });

  test("a 5xx retried by the state machine counts PageRetries with the error class, as the customer's", async () => {
    const { summary, added } = await syncCounting(failFirst("/contacts", 2, { status: 503, json: { error: "maintenance" } }));
    expect(entityRow(summary, "contacts")?.status).toBe("succeeded");
    expect(added(METRIC.pageRetries, { entity: "contacts", error_class: "SourceTransientError", fault: "customer" })).toBe(2);
    expect(added(METRIC.pageRetries, { fault: "ours" })).toBe(0);
  });

  test("a failed entity (the customer's: the source answers 400) counts EntityFailures with its error class and fault customer, none as ours", async () => {
    const { summary, added } = await syncCounting(failFirst("/leads", Infinity, { status: 400, json: { error: "bad filter" } }));
    expect(entityRow(summary, "leads")?.status).toBe("failed");
    expect(added(METRIC.entityFailures, { entity: "leads", error_class: "SourceHardError", fault: "customer" })).toBe(1);
    expect(added(METRIC.entityFailures, { fault: "ours" })).toBe(0);
    expect(added(METRIC.runsFailed)).toBe(1);
  });

  test("a 401 stops the run: every unfinished entity counts one EntityFailures, SourceAuthError, the customer's", async () => {
    const { summary, added } = await syncCounting(failFirst("/contacts", Infinity, { status: 401, json: { error: "revoked" } }));
    const failedRows = summary.entities.filter((row) => row.status === "failed").map((row) => row.entity);
    expect(failedRows).toContain("contacts");
    expect(added(METRIC.entityFailures, { error_class: "SourceAuthError", fault: "customer" })).toBe(failedRows.length);
    expect(added(METRIC.entityFailures, { fault: "ours" })).toBe(0);
  });

  test("a store failure (ours): the page task's store is missing on DynamoDB Local; the entity fails with that error class, fault ours", async () => {
    const metrics = new CountingMetrics();
    const server = await startSourceServer(crmSource(metricsCrm, { token: TOKEN }));
    servers.push(server);
    const connection = await harness.addConnection({ baseUrl: server.baseUrl, token: TOKEN });
    // Only the run is begun (no execution): this test plays the state machine, calling the Task handlers in its order.
    const startDeps: StartSyncDeps = { ...harness.startDeps, starter: { start: async () => "exec-store-failure", isRunning: async () => true, abort: async () => undefined } };
    const { runId } = await startSync(startDeps, connection);
    const handlers = makeSyncHandlers({ ...harness.deps, metrics });
    const client = testDynamoDbClient();
    clients.push(client);
    const broken = makeSyncHandlers({
      ...harness.deps,
      metrics,
      records: new DynamoDbRecordStore({ client, tableName: `missing-${randomUUID()}` }),
    });

    const state = await handlers.BeginRun({ input: { business_account_id: connection.business_account_id, connection_id: connection.id, run_id: runId }, execution_id: "exec-store-failure" });
    const thrown = await broken.SyncPage(state).then(
      () => undefined,
      (error: unknown) => error as Error,
    );
    expect(thrown?.name).toBe("ResourceNotFoundException");
    // The definition's Catch (States.ALL) hands the error to EntityFailed, as Lambda reports it.
    await handlers.EntityFailed({ ...state, error: { Error: thrown!.name, Cause: JSON.stringify({ errorType: thrown!.name, errorMessage: thrown!.message }) } });

    expect(metrics.sum(METRIC.entityFailures, { entity: "pipelines", error_class: "ResourceNotFoundException", fault: "ours" })).toBe(1);
    expect(metrics.sum(METRIC.entityFailures, { fault: "customer" })).toBe(0);
    const line = harness.logger.lines.find((logged) => logged.message === "entity failed" && logged.run_id === runId);
    expect(line).toMatchObject({ connection_id: connection.id, entity: "pipelines", error_class: "ResourceNotFoundException", fault: "ours" });
  });
});
