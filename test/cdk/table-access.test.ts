import { DynamoDbNotificationStore } from "../../lambdas/adapters/dynamodb/notifications/dynamodb-notification-store";
import { DynamoDbWebhookStore } from "../../lambdas/adapters/dynamodb/webhooks/dynamodb-webhook-store";
import { notifyingPublisher } from "../../lambdas/domain/notifications/notifying-publisher";
import { randomBytes, randomUUID } from "node:crypto";
import { DynamoDbHistoryStore } from "../../lambdas/adapters/dynamodb/history/dynamodb-history-store";
import { DynamoDbChangeStore } from "../../lambdas/adapters/dynamodb/changes/dynamodb-change-store";
import { DynamoDbAuditStore } from "../../lambdas/adapters/dynamodb/audits/dynamodb-audit-store";
import { DynamoDbFiguresStore } from "../../lambdas/adapters/dynamodb/figures/dynamodb-figures-store";

import type { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { DynamoDbConnectionStore } from "../../lambdas/adapters/dynamodb/connections/dynamodb-connection-store";
import type { StoredConnection } from "../../lambdas/domain/core/connection";
import type { SyncExecutionInput } from "../../lambdas/domain/core/ports/run-starter";
import { AesGcmTokenCipher } from "../../lambdas/adapters/local/aes-token-cipher";
import { createMemoryLogger } from "../../lambdas/adapters/local/json-logger";
import { DynamoDbRateLimiter } from "../../lambdas/adapters/dynamodb/rate-limit/dynamodb-rate-limiter";
import { DynamoDbRunStore } from "../../lambdas/adapters/dynamodb/runs/dynamodb-run-store";
import { createHttpSourceClient } from "../../lambdas/adapters/source-http/http-source-client";
import { DynamoDbRecordStore } from "../../lambdas/adapters/dynamodb/records/dynamodb-record-store";
import { makeDispatchHandler } from "../../lambdas/handlers/sync/dispatch-handler";
import type { PlannedDispatchPage } from "../../lambdas/domain/sync/dispatch-tick";
import { InProcessPreflightLauncher } from "../../lambdas/adapters/local/in-process-preflight-launcher";
import { failUnfinishedPreflight } from "../../lambdas/domain/preflight/preflight-failure";
import { runPreflightJob } from "../../lambdas/domain/preflight/preflight-job";
import { startedPreflightRun } from "../../lambdas/domain/preflight/preflight-run";
import { makePreflightFailedHandler } from "../../lambdas/handlers/preflight/preflight-worker-handler";
import { DynamoDbPreflightStore } from "../../lambdas/adapters/dynamodb/preflight-runs/dynamodb-preflight-store";
import { makeApiHandler, type ApiEvent } from "../../lambdas/handlers/http/api-handler";
import { makeSyncHandlers } from "../../lambdas/handlers/sync/sync-handlers";
import { claimRun } from "../../lambdas/domain/sync/start-sync";
import type { SyncState } from "../../lambdas/domain/sync/sync-state";
import { TABLE_ACCESS, type TableAction } from "../../lib/table-access";
import { DynamoDbPurgeQueue } from "../../lambdas/adapters/dynamodb/purges/dynamodb-purge-queue";
import { DELETED_CONNECTION_PURGE_DELAY_SECONDS } from "../../lambdas/adapters/dynamodb/purges/purge-keys";
import { makePurgeHandler } from "../../lambdas/handlers/retention/purge-handler";
import { purgeDeletedConnections } from "../../lambdas/domain/retention/purge-deleted-connections";
import { contactRecord, leadRecord, pipelineRecord, stageRecord, userRecord } from "../builders/source-records";
import { encryptedConnection } from "../builders/stored-connections";
import { crmSource } from "../support/crm-source";
import { createTestTable, testDynamoDbClient } from "../support/dynamodb";
import { recordingClient } from "./recorded-table-actions";
import { startSourceServer, type SourceServer } from "../support/source-server";
import { CountingMetrics } from "../../lambdas/adapters/local/counting-metrics";
import { baseUrlPolicy, webhookUrlPolicy } from "../../lambdas/adapters/source-http/ssrf/base-url-policy";
import { dynamoDbKeySpace } from "../../lambdas/adapters/dynamodb/dynamodb-key-space";
import { DynamoDbManagerStore } from "../../lambdas/adapters/dynamodb/managers/dynamodb-manager-store";
import { DynamoDbRecordScan } from "../../lambdas/adapters/dynamodb/records/record-scan";
import { refreshManagers } from "../../lambdas/domain/analytics/refresh-managers";
import type { ManagerRefresher } from "../../lambdas/domain/core/ports/manager-refresher";

/**
 * The table actions each sync function really sends, recorded on DynamoDB
 * Local: every "function" gets its own client (as each Lambda has its own
 * process), whose middleware records the IAM action of each command, and the
 * handlers run as the state machine would call them, through a run that
 * succeeds, one whose entity fails, one stopped by a 401 and a dead run taken
 * over by the schedule tick. Step Functions itself is the boundary: the run
 * starter is a stub.
 */

type SyncFunctionName =
  | "BeginRun"
  | "SyncPage"
  | "EntityFailed"
  | "StopRun"
  | "FinishRun"
  | "Dispatcher"
  | "Api"
  | "TestConnectionApi"
  | "PreflightWorker"
  | "PreflightFailed"
  | "PurgeDeleted"
  | "ManagerRefresh";
const recorded = new Map<SyncFunctionName, Set<TableAction>>();

const TOKEN = "table-access-token-7f1e";
let setup: DynamoDBClient;
let tableName: string;
let server: SourceServer;
let failUsers = false;
let unauthorized = false;
const clients: DynamoDBClient[] = [];
const cipher = new AesGcmTokenCipher(randomBytes(32));
const logger = createMemoryLogger();
const clock = { now: () => new Date() };
const source = createHttpSourceClient({ timeoutMs: 2_000 });

/** One function's stores, on its own recording client. */
function storesOf(name: SyncFunctionName) {
  const client = recordingClient(recorded, name);
  clients.push(client);
  return {
    records: new DynamoDbRecordStore({ client, tableName }),
    runs: new DynamoDbRunStore({ client, tableName }),
    connections: new DynamoDbConnectionStore({ client, tableName }),
    limiter: new DynamoDbRateLimiter({ client, tableName }),
    preflights: new DynamoDbPreflightStore({ client, tableName }),
    purges: new DynamoDbPurgeQueue({ client, tableName }),
    notifications: new DynamoDbNotificationStore({ client, tableName }),
    audits: new DynamoDbAuditStore({ client, tableName }),
    figures: new DynamoDbFiguresStore({ client, tableName }, new DynamoDbRecordScan({ client, tableName }, new DynamoDbRecordStore({ client, tableName }))),
    managers: new DynamoDbManagerStore({ client, tableName }),
    scan: new DynamoDbRecordScan({ client, tableName }, new DynamoDbRecordStore({ client, tableName })),
    history: new DynamoDbHistoryStore({ client, tableName }),
    changes: new DynamoDbChangeStore({ client, tableName }),
    webhooks: new DynamoDbWebhookStore({ client, tableName }),
  };
}

/** The ManagerRefresh function on its own recording client, invoked at FinishRun's request as Lambda would run it. */
const refreshes: Promise<unknown>[] = [];
const managerRefresher: ManagerRefresher = {
  request: async (job) => {
    const { scan, managers } = storesOf("ManagerRefresh");
    refreshes.push(refreshManagers({ scan, managers, clock, logger }, job));
  },
};

type TaskFunctionName = Exclude<SyncFunctionName, "Dispatcher" | "Api" | "TestConnectionApi" | "PreflightWorker" | "PreflightFailed" | "PurgeDeleted" | "ManagerRefresh">;
const handlersOf = (name: TaskFunctionName) => {
  const stores = storesOf(name);
  // The events' way out has no table access of its own (EventBridge in AWS); the notifications do.
  const events = notifyingPublisher({ notifications: stores.notifications, out: { publish: async () => {} }, clock, logger });
  return makeSyncHandlers({ ...stores, events, cipher, source, clock, logger, metrics: new CountingMetrics(), ...(name === "FinishRun" ? { managerRefresher } : {}) });
};
let handlers: { [K in TaskFunctionName]: ReturnType<typeof handlersOf> };

/** The preflight worker on its own recording client, launched in process as the local runtime does; its failures go to PreflightFailed's. */
const preflightWorker = new InProcessPreflightLauncher(
  (job) => {
    const { connections, limiter, preflights } = storesOf("PreflightWorker");
    return runPreflightJob({ connections, limiter, preflights, cipher, sourceFetch: fetch, clock, logger }, job);
  },
  logger,
  (job) => failUnfinishedPreflight({ preflights: storesOf("PreflightFailed").preflights, clock, logger }, job),
);

/** An API function (the onboarding entry point) on its own recording client; the run starter is a stub. */
const startedByApi: SyncExecutionInput[] = [];
function apiOf(name: "Api" | "TestConnectionApi") {
  const starter = { start: async (input: SyncExecutionInput) => (startedByApi.push(input), `exec-${input.run_id}`), isRunning: async () => false, abort: async () => undefined };
  return makeApiHandler({ ...storesOf(name), cipher, source, starter, clock, logger, baseUrls: baseUrlPolicy({ allowLoopback: true }), webhookUrls: webhookUrlPolicy({ allowLoopback: true }), keySpace: dynamoDbKeySpace, preflightLauncher: preflightWorker });
}

const CONNECTIONS = "/api/v1/crm/custom/connections";
/** A payload-2.0 event as API Gateway sends it after the JWT authorizer. */
function apiEvent(routeKey: string, path: Record<string, string> = {}, body?: unknown, query: Record<string, string> = {}): ApiEvent {
  return {
    routeKey,
    pathParameters: path,
    queryStringParameters: query,
    body: body === undefined ? undefined : JSON.stringify(body),
    isBase64Encoded: false,
    requestContext: { authorizer: { jwt: { claims: { business_account_id: "acct-api-access", sub: "user-1", role: "owner" }, scopes: [] } } },
  } as unknown as ApiEvent;
}

/**
 * The schedule tick as statemachine/dispatch.asl.json drives the dispatcher function: ListConnections pages of
 * batches, ClaimRuns per batch, and Step Functions (a stub here) starting each claimed run; `running` says whether a
 * run's execution is alive.
 */
async function tick(started: SyncExecutionInput[], running: boolean): Promise<void> {
  const starter = { start: async () => "never", isRunning: async () => running, abort: async () => undefined };
  const stores = storesOf("Dispatcher");
  // The tick's freshness check of paused connections: its reads, and the notifications of a connection turning stale.
  const events = notifyingPublisher({ notifications: stores.notifications, out: { publish: async () => {} }, clock, logger });
  const staleCheck = { records: stores.records, events, scheduleIntervalMs: 3_600_000 };
  const dispatcher = makeDispatchHandler({ ...stores, starter, clock, logger, staleCheck });
  let cursor: string | null = null;
  do {
    const page = (await dispatcher({ task: "ListConnections", cursor, batch_size: 10, max_runs: 200, max_children: 20 })) as PlannedDispatchPage;
    for (const batch of page.batches) {
      const claimed = (await dispatcher({ task: "ClaimRuns", items: batch.items })) as { runs: SyncExecutionInput[] };
      started.push(...claimed.runs);
    }
    cursor = page.cursor;
  } while (cursor !== null);
}

/** One run as the state machine drives it: BeginRun, pages, the catches, FinishRun. */
async function driveRun(input: SyncExecutionInput): Promise<void> {
  let state: SyncState = await handlers.BeginRun.BeginRun({ input, execution_id: `exec-${input.run_id}` });
  for (let tasks = 0; tasks < 100 && state.step.outcome === "next_page"; tasks += 1) {
    try {
      state = await handlers.SyncPage.SyncPage(state);
    } catch (error) {
      const caught = { Error: (error as Error).name, Cause: JSON.stringify({ errorType: (error as Error).name, errorMessage: (error as Error).message }) };
      if (caught.Error === "SourceAuthError") {
        state = await handlers.StopRun.StopRun({ ...state, error: caught });
        break;
      }
      state = await handlers.EntityFailed.EntityFailed({ ...state, error: caught });
    }
  }
  await handlers.FinishRun.FinishRun(state);
}

beforeAll(async () => {
  setup = testDynamoDbClient();
  tableName = await createTestTable(setup);
  handlers = { BeginRun: handlersOf("BeginRun"), SyncPage: handlersOf("SyncPage"), EntityFailed: handlersOf("EntityFailed"), StopRun: handlersOf("StopRun"), FinishRun: handlersOf("FinishRun") };
  server = await startSourceServer(
    crmSource(
      () => ({
        pipelines: [pipelineRecord({ id: "p1", stages: [stageRecord({ id: "s1" })] })],
        users: [userRecord({ id: "u1" })],
        contacts: [contactRecord({ id: "c1" })],
        leads: [leadRecord({ id: "l1", pipeline_id: "p1", stage_id: "s1" })],
      }),
      {
        token: TOKEN,
        fault: (request) => {
          if (unauthorized) return { status: 401, json: { error: "revoked" } };
          if (failUsers && request.path === "/users") return { status: 400, json: { error: "bad request" } };
          return undefined;
        },
      },
    ),
  );
}, 60_000);

afterAll(async () => {
  await server?.close();
  for (const client of [...clients, setup]) client?.destroy();
});

async function addConnection(fields: Partial<StoredConnection> = {}): Promise<StoredConnection> {
  const connection = await encryptedConnection(cipher, TOKEN, { business_account_id: "acct-table-access", base_url: server.baseUrl, ...fields });
  await new DynamoDbConnectionStore({ client: setup, tableName }).put(connection);
  return connection;
}

/** Paused, never synced, created 90 minutes ago with freshness_hours 1: the first tick finds it turned stale and tells. */
const addPausedStaleConnection = () =>
  addConnection({ paused: true, freshness_hours: 1, created_at: new Date(clock.now().getTime() - 90 * 60_000).toISOString() });

describe("least privilege: the table actions the functions send", () => {
  test("each sync function and the dispatcher send only the table actions TABLE_ACCESS grants them, through a run that succeeds, one with a failed entity, one stopped by a 401, and a dead run taken over", async () => {
    const connection = await addConnection();
    const started: SyncExecutionInput[] = [];
    const paused = await addPausedStaleConnection();

    // A run that succeeds.
    await tick(started, false);
    expect(started).toHaveLength(1);
    await driveRun(started[0]!);

    // An audit of the connection: the same Task functions, its page task comparing with the store and healing.
    const audit = await claimRun({ ...storesOf("Dispatcher"), starter: { start: async () => "never", isRunning: async () => false, abort: async () => undefined }, clock, logger }, { business_account_id: connection.business_account_id, id: connection.id }, { mode: "audit" });
    expect(audit.claimed).toBe(true);
    if (audit.claimed) await driveRun(audit.input);

    // A run whose /users fails (EntityFailed goes on to the next entity).
    failUsers = true;
    await tick(started, false);
    await driveRun(started[1]!);
    failUsers = false;

    // A run stopped by a 401 (StopRun fails the rest).
    unauthorized = true;
    await tick(started, false);
    await driveRun(started[2]!);
    unauthorized = false;

    // A run whose execution died after BeginRun recorded it: the next tick reports it failed and takes its lock over.
    await tick(started, false);
    await handlers.BeginRun.BeginRun({ input: started[3]!, execution_id: `exec-${started[3]!.run_id}` });
    await tick(started, false);
    expect(started).toHaveLength(5);

    // A run whose first segment failed for good: the tick's ReleaseRun fails it and releases its lock.
    await handlers.BeginRun.BeginRun({ input: started[4]!, execution_id: null });
    await makeDispatchHandler({ ...storesOf("Dispatcher"), starter: { start: async () => "never", isRunning: async () => false, abort: async () => undefined }, clock, logger })({
      task: "ReleaseRun",
      ...started[4]!,
    });
    void connection;
    const notices = await new DynamoDbNotificationStore({ client: setup, tableName }).listLatest("acct-table-access", 100);
    expect(notices.filter((notice) => notice.detail_type === "Connection Stale").map((notice) => notice.connection_id)).toEqual([paused.id]);

    for (const [name, actions] of recorded) {
      const granted = new Set<string>(TABLE_ACCESS[name]);
      for (const action of actions) expect(granted.has(action), `${name} sends ${action}, which TABLE_ACCESS does not grant it`).toBe(true);
    }
    // The runs went where they had to: the page task wrote records, FinishRun released its lock, the dispatcher took a dead one over.
    expect([...recorded.get("SyncPage")!]).toEqual(expect.arrayContaining(["dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:GetItem", "dynamodb:Query"]));
    expect([...recorded.get("FinishRun")!]).toContain("dynamodb:DeleteItem");
    await Promise.all(refreshes);
    expect([...recorded.get("ManagerRefresh")!]).toEqual(expect.arrayContaining(["dynamodb:Query", "dynamodb:PutItem"]));
    expect([...recorded.get("Dispatcher")!]).toEqual(expect.arrayContaining(["dynamodb:Query", "dynamodb:BatchGetItem", "dynamodb:PutItem", "dynamodb:DeleteItem"]));
    expect(recorded.get("EntityFailed")!.size).toBeGreaterThan(0);
    expect(recorded.get("StopRun")!.size).toBeGreaterThan(0);
  }, 60_000);

  test("the API functions and the preflight worker send only the table actions TABLE_ACCESS grants them, over every route they serve", async () => {
    const api = apiOf("Api");
    const testApi = apiOf("TestConnectionApi");
    const call = async (handler: ReturnType<typeof apiOf>, event: ApiEvent) => (await handler(event, {} as never)) as { statusCode: number; body?: string };

    const created = await call(api, apiEvent(`POST ${CONNECTIONS}`, {}, { base_url: server.baseUrl, token: TOKEN, rate_limit: 100 }));
    expect(created.statusCode).toBe(201);
    const id = (JSON.parse(created.body!) as { id: string }).id;
    const statuses = [
      (await call(api, apiEvent(`GET ${CONNECTIONS}`))).statusCode,
      (await call(api, apiEvent(`GET ${CONNECTIONS}/{id}`, { id }))).statusCode,
      (await call(testApi, apiEvent(`POST ${CONNECTIONS}/{id}/test`, { id }))).statusCode,
      (await call(api, apiEvent(`POST ${CONNECTIONS}/{id}/syncs`, { id }))).statusCode,
      (await call(api, apiEvent(`GET ${CONNECTIONS}/{id}/syncs`, { id }))).statusCode,
      (await call(api, apiEvent(`PATCH ${CONNECTIONS}/{id}`, { id }, { sync_since: "2026-02-01T00:00:00Z", token: `${TOKEN}-new` }))).statusCode,
      (await call(api, apiEvent(`GET ${CONNECTIONS}/{id}/records/{entity}`, { id, entity: "leads" }))).statusCode,
    ];
    const runs = JSON.parse((await call(api, apiEvent(`GET ${CONNECTIONS}/{id}/syncs`, { id }))).body!) as { data: { id: string }[] };
    statuses.push(
      (await call(api, apiEvent(`POST ${CONNECTIONS}/{id}/pause`, { id }))).statusCode,
      (await call(api, apiEvent(`POST ${CONNECTIONS}/{id}/resume`, { id }))).statusCode,
      (await call(api, apiEvent(`POST ${CONNECTIONS}/{id}/syncs/{runId}/cancel`, { id, runId: runs.data[0]!.id }))).statusCode,
      (await call(api, apiEvent(`POST ${CONNECTIONS}/{id}/reset`, { id }, { entity: "leads" }))).statusCode,
      (await call(api, apiEvent(`POST ${CONNECTIONS}/{id}/reset`, { id }, {}))).statusCode,
      (await call(api, apiEvent(`GET ${CONNECTIONS}/{id}/analytics/funnel`, { id }))).statusCode,
      (await call(api, apiEvent(`GET ${CONNECTIONS}/{id}/records`, { id }))).statusCode,
      (await call(testApi, apiEvent(`POST ${CONNECTIONS}/test`, {}, { base_url: server.baseUrl, token: TOKEN }))).statusCode,
      // A run the API starts (with the token the source accepts), driven as Step Functions would: the managers' routes below then have a user and a lead.
      (await call(api, apiEvent(`PATCH ${CONNECTIONS}/{id}`, { id }, { token: TOKEN }))).statusCode,
      (await call(api, apiEvent(`POST ${CONNECTIONS}/{id}/syncs`, { id }))).statusCode,
      await driveRun(startedByApi.at(-1)!).then(() => Promise.all(refreshes)).then(() => 200),
      (await call(api, apiEvent(`GET ${CONNECTIONS}/{id}/managers`, { id }))).statusCode,
      (await call(api, apiEvent(`PUT ${CONNECTIONS}/{id}/managers/{sourceUserId}`, { id, sourceUserId: "u1" }, { user_id: "member-1" }))).statusCode,
      (await call(api, apiEvent(`DELETE ${CONNECTIONS}/{id}/managers/{sourceUserId}`, { id, sourceUserId: "u1" }))).statusCode,
      (await call(api, apiEvent("GET /api/v1/analytics/connections"))).statusCode,
      (await call(api, apiEvent("GET /api/v1/analytics/connections/{id}/managers", { id }))).statusCode,
      (await call(api, apiEvent("GET /api/v1/analytics/connections/{id}/{collection}", { id, collection: "leads" }, undefined, { user_id: "u1" }))).statusCode,
      (await call(api, apiEvent("GET /api/v1/analytics/connections/{id}/{collection}/{recordId}", { id, collection: "leads", recordId: "l1" }))).statusCode,
    );
    const preflight = await call(api, apiEvent(`POST ${CONNECTIONS}/{id}/preflight`, { id }));
    await preflightWorker.idle();
    const preflightId = (JSON.parse(preflight.body!) as { id: string }).id;
    statuses.push(
      preflight.statusCode,
      (await call(api, apiEvent(`GET ${CONNECTIONS}/{id}/preflight/{preflightId}`, { id, preflightId }))).statusCode,
      (await call(api, apiEvent(`DELETE ${CONNECTIONS}/{id}`, { id }))).statusCode,
    );
    expect(statuses).toEqual([200, 200, 200, 202, 200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 202, 200, 200, 200, 200, 200, 200, 200, 200, 202, 200, 204]);

    for (const name of ["Api", "TestConnectionApi", "PreflightWorker"] as const) {
      const granted = new Set<string>(TABLE_ACCESS[name]);
      for (const action of recorded.get(name)!) expect(granted.has(action), `${name} sends ${action}, which TABLE_ACCESS does not grant it`).toBe(true);
    }
    expect([...recorded.get("Api")!]).toEqual(expect.arrayContaining(["dynamodb:PutItem", "dynamodb:Query", "dynamodb:UpdateItem", "dynamodb:DeleteItem"]));
    expect([...recorded.get("TestConnectionApi")!].sort()).toEqual(["dynamodb:GetItem", "dynamodb:PutItem"]);
    expect([...recorded.get("PreflightWorker")!].sort()).toEqual(["dynamodb:GetItem", "dynamodb:PutItem"]);
  }, 60_000);

  test("the preflight worker's on-failure destination sends only the table actions TABLE_ACCESS grants it, ending a run its worker left running", async () => {
    const connection = await addConnection();
    const job = { business_account_id: connection.business_account_id, connection_id: connection.id, preflight_id: "20261121T000000000Z-left01" };
    await new DynamoDbPreflightStore({ client: setup, tableName }).put(startedPreflightRun(job.preflight_id, connection, new Date()));
    const handler = makePreflightFailedHandler({ preflights: storesOf("PreflightFailed").preflights, clock, logger });
    await handler({ requestContext: { condition: "RetriesExhausted" }, requestPayload: job, responsePayload: { errorType: "Error" } });

    expect(await new DynamoDbPreflightStore({ client: setup, tableName }).get(connection.id, job.preflight_id)).toMatchObject({ status: "failed" });
    expect([...recorded.get("PreflightFailed")!].sort()).toEqual([...TABLE_ACCESS.PreflightFailed].sort());
  }, 60_000);

  test("the purge of deleted connections sends only the table actions TABLE_ACCESS grants it, over a synced connection's data", async () => {
    const connection = await addConnection();
    const started: SyncExecutionInput[] = [];
    await addPausedStaleConnection();
    await tick(started, false);
    await driveRun(started.find((input) => input.connection_id === connection.id)!);
    // Both ends on fixed clocks: the delete at DELETED_AT, the purge once the delay has passed.
    const DELETED_AT = Date.parse("2026-11-23T12:00:00.000Z");
    await new DynamoDbConnectionStore({ client: setup, tableName, clock: { now: () => new Date(DELETED_AT) } }).delete(connection.business_account_id, connection.id);

    const { purges, connections } = storesOf("PurgeDeleted");
    const later = { now: () => new Date(DELETED_AT + DELETED_CONNECTION_PURGE_DELAY_SECONDS * 1000) };
    // An invocation whose budget ends first keeps where it stopped; the scheduled one finishes.
    const cutShort = await purgeDeletedConnections({ purges, connections, clock: later, logger }, { maxItems: 5 });
    expect(cutShort.unfinished).toContain(connection.id);
    const result = await makePurgeHandler({ purges, connections, clock: later, logger })();

    expect(result.purged).toContain(connection.id);
    expect([...recorded.get("PurgeDeleted")!].sort()).toEqual([...TABLE_ACCESS.PurgeDeleted].sort());
  }, 60_000);
});
