import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { Clock } from "../../../lambdas/domain/core/ports/clock";
import { leadRecord, pipelineRecord } from "../../builders/source-records";
import { crmSource, type CrmData } from "../../support/crm-source";
import { CONNECTIONS_PATH, startSourcedConnection, type ApiHarness, type SourcedConnection } from "../../support/api-harness";
import { createLocalDispatch } from "../../../lambdas/runtimes/local/local-dispatch";
import type { SourceHandler, SourceServer } from "../../support/source-server";

/** Issue 22 item 6: events out. Locally they go to the log and to GET /api/v1/crm/custom/notifications. */
const SOURCE_TOKEN = "src-notifications-31f0c9";
const NOTIFICATIONS = "/api/v1/crm/custom/notifications";
const T0 = Date.parse("2026-03-01T12:00:00.000Z");
const HOUR = 3_600_000;
let time = T0;
const clock: Clock = { now: () => new Date(time) };

let users: "up" | "down" = "up";
const data: CrmData = {
  pipelines: [pipelineRecord({ id: "pipeline-1" })],
  users: [],
  contacts: [],
  leads: [leadRecord({ id: "lead-1", updated_at: "2026-02-03T08:00:00Z" })],
};
const handler = crmSource(() => data, { token: SOURCE_TOKEN });

let api: ApiHarness;
let env: SourcedConnection;
let source: SourceServer;
let owner: string;
let connectionId: string;

async function sync() {
  const run = await api.request("POST", `${CONNECTIONS_PATH}/${connectionId}/syncs`, { token: owner });
  return api.waitForRun(connectionId, run.body.id);
}

beforeAll(async () => {
  const serve: SourceHandler = async (request) => (request.path === "/users" && users === "down" ? { status: 403, json: { error: "no" } } : handler(request));
  env = await startSourcedConnection("acct-notifications", serve, { token: SOURCE_TOKEN, syncSince: "2026-01-01T00:00:00Z" }, { clock, schedule: "1h" });
  ({ api, owner, connectionId, source } = env);
});
afterAll(() => env.close());

describe("events out, and the workspace's notifications", () => {
  test("a finished run sends Sync Run Finished: logged with the service's source and listed as a notification", async () => {
    const summary = await sync();
    const listed = await api.request("GET", NOTIFICATIONS, { token: owner });
    expect(listed.status).toBe(200);
    expect(listed.body.data).toEqual([
      {
        id: `run-finished:${connectionId}:${summary.id}`,
        detail_type: "Sync Run Finished",
        connection_id: connectionId,
        at: new Date(T0).toISOString(),
        detail: expect.objectContaining({ run_id: summary.id, status: "succeeded", business_account_id: "acct-notifications", connection_id: connectionId }),
      },
    ]);
    const logged = api.logger.lines.filter((line) => line["message"] === "event");
    expect(logged).toEqual([expect.objectContaining({ source: "crm.custom-integration", detail_type: "Sync Run Finished" })]);
  });

  test("connection stale is sent once when a required entity's data gets older than freshness_hours, however many runs see it", async () => {
    users = "down";
    try {
      time = T0 + 3 * HOUR;
      expect((await sync()).status).toBe("failed");
      time = T0 + 4 * HOUR;
      expect((await sync()).status).toBe("failed");
    } finally {
      users = "up";
    }
    const stale = (await api.request("GET", NOTIFICATIONS, { token: owner })).body.data.filter((n: { detail_type: string }) => n.detail_type === "Connection Stale");
    expect(stale).toEqual([
      expect.objectContaining({
        at: new Date(T0 + 3 * HOUR).toISOString(),
        detail: expect.objectContaining({ freshness_hours: 2, stale_entities: [{ entity: "users", data_as_of: new Date(T0).toISOString() }] }),
      }),
    ]);
    // Newest first (at the same time, by id): the last run's end heads the list.
    const all = (await api.request("GET", NOTIFICATIONS, { token: owner })).body.data;
    expect(all.map((n: { detail_type: string; at: string }) => `${n.detail_type} ${n.at}`)).toEqual([
      `Sync Run Finished ${new Date(T0 + 4 * HOUR).toISOString()}`,
      `Connection Stale ${new Date(T0 + 3 * HOUR).toISOString()}`,
      `Sync Run Finished ${new Date(T0 + 3 * HOUR).toISOString()}`,
      `Sync Run Finished ${new Date(T0).toISOString()}`,
    ]);
  });

  test("an audit's end sends Audit Finished, never Sync Run Finished: logged and listed once, with its heal counts", async () => {
    time = T0 + 5 * HOUR;
    const started = await api.request("POST", `${CONNECTIONS_PATH}/${connectionId}/audits`, { token: owner });
    expect(started.status).toBe(202);
    await api.waitForRun(connectionId, started.body.id);
    const listed = (await api.request("GET", NOTIFICATIONS, { token: owner })).body.data;
    const ofAudit = listed.filter((n: { detail: Record<string, unknown> }) => n.detail["audit_id"] === started.body.id || n.detail["run_id"] === started.body.id);
    expect(ofAudit).toEqual([
      {
        id: `audit-finished:${connectionId}:${started.body.id}`,
        detail_type: "Audit Finished",
        connection_id: connectionId,
        at: new Date(time).toISOString(),
        detail: {
          event_id: `audit-finished:${connectionId}:${started.body.id}`,
          business_account_id: "acct-notifications",
          connection_id: connectionId,
          audit_id: started.body.id,
          status: "succeeded",
          started_at: new Date(time).toISOString(),
          finished_at: new Date(time).toISOString(),
          healed: { missed: 0, stale: 0, changed_without_advancing: 0 },
          ahead_of_watermark: 0,
          absent_in_source: 0,
        },
      },
    ]);
    const logged = api.logger.lines.filter((line) => line["message"] === "event" && line["detail_type"] === "Audit Finished");
    expect(logged).toEqual([expect.objectContaining({ source: "crm.custom-integration", detail: expect.objectContaining({ audit_id: started.body.id }) })]);
  });

  test("a paused connection turns stale at the schedule tick: Connection Stale once, at the first tick past freshness_hours, and no notification write at later ticks", async () => {
    time = T0 + 10 * HOUR;
    const created = await api.request("POST", CONNECTIONS_PATH, {
      token: owner,
      body: { base_url: source.baseUrl, token: SOURCE_TOKEN, rate_limit: 1000, sync_since: "2026-01-01T00:00:00Z" },
    });
    const pausedId: string = created.body.id;
    const run = await api.request("POST", `${CONNECTIONS_PATH}/${pausedId}/syncs`, { token: owner });
    expect((await api.waitForRun(pausedId, run.body.id)).status).toBe("succeeded");
    expect((await api.request("POST", `${CONNECTIONS_PATH}/${pausedId}/pause`, { token: owner })).status).toBe(200);
    // Every notification the store is asked to record for the paused connection (its conditional write), tick by tick.
    const writes: string[] = [];
    api.client.middlewareStack.add(
      (next, context) => async (args) => {
        const items = context.commandName === "TransactWriteItemsCommand" ? ((args.input as { TransactItems?: { Put?: { Item?: Record<string, { S?: string }> } }[] }).TransactItems ?? []) : [];
        for (const item of items) if (item.Put?.Item?.["pk"]?.S?.startsWith("NOTIFY#") && item.Put.Item["connection_id"]?.S === pausedId) writes.push(new Date(time).toISOString());
        return next(args);
      },
      { step: "initialize", name: "countPausedNotifications" },
    );
    const staleOfPaused = async () =>
      (await api.request("GET", NOTIFICATIONS, { token: owner })).body.data.filter((n: { detail_type: string; connection_id: string }) => n.detail_type === "Connection Stale" && n.connection_id === pausedId);
    const tickAt = async (at: number) => {
      time = at;
      const dispatch = createLocalDispatch({ startDeps: api.sync.startDeps, integrations: api.sync.engine.integrations, maxConcurrentRuns: 20, timeScale: 0.01, logger: api.logger });
      expect((await dispatch.tick()).status).toBe("SUCCEEDED");
      await dispatch.stop();
    };
    try {
      await tickAt(T0 + 11 * HOUR);
      expect(await staleOfPaused()).toEqual([]);
      await tickAt(T0 + 12.5 * HOUR);
      expect(await staleOfPaused()).toEqual([
        expect.objectContaining({
          at: new Date(T0 + 12.5 * HOUR).toISOString(),
          detail: expect.objectContaining({ freshness_hours: 2, stale_entities: expect.arrayContaining([{ entity: "leads", data_as_of: new Date(T0 + 10 * HOUR).toISOString() }]) }),
        }),
      ]);
      // Still stale, and still paused: past two intervals of the change no tick tries to record it again.
      await tickAt(T0 + 20 * HOUR);
      expect(writes.filter((at) => at === new Date(T0 + 20 * HOUR).toISOString())).toEqual([]);
      expect(await staleOfPaused()).toHaveLength(1);
    } finally {
      api.client.middlewareStack.remove("countPausedNotifications");
    }
  });

  test("no event carries the token, and the list is the owner's of this workspace only", async () => {
    const listed = await api.request("GET", NOTIFICATIONS, { token: owner });
    expect(listed.text).not.toContain(SOURCE_TOKEN);
    expect(JSON.stringify(api.logger.lines)).not.toContain(SOURCE_TOKEN);
    expect((await api.request("GET", NOTIFICATIONS, { token: await api.token("acct-someone-else") })).body).toEqual({ data: [] });
    expect((await api.request("GET", NOTIFICATIONS, { token: await api.token("acct-notifications", "ROP") })).status).toBe(403);
  });
});
