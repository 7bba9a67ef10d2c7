import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { SUMMARY_ENTITIES } from "../../lambdas/core/entities";
import {
  callRecord,
  contactRecord,
  eventRecord,
  leadRecord,
  pipelineRecord,
  stageRecord,
  taskRecord,
  userRecord,
} from "../builders/source-records";
import { crmSource, entityOrder, type CrmData } from "../support/crm-source";
import { startSourceServer, type SourceServer } from "../support/source-server";
import { createSyncHarness, type SyncHarness } from "../support/sync-harness";

const TOKEN = "sync-run-token-1b6e";
let harness: SyncHarness;
let server: SourceServer;
let data: CrmData = {};

const stamp = (minute: number) => new Date(Date.UTC(2026, 2, 1, 0, minute)).toISOString();
function fullCrm(): CrmData {
  return {
    pipelines: [
      pipelineRecord({
        id: "p1",
        stages: [stageRecord({ id: "open", kind: "open" }), stageRecord({ id: "won", kind: "won" }), stageRecord({ id: "lost", kind: "lost" })],
      }),
    ],
    users: [userRecord({ id: "u1" }), userRecord({ id: "u2" })],
    contacts: Array.from({ length: 250 }, (_, i) => contactRecord({ id: `c${i}`, updated_at: stamp(i) })),
    leads: Array.from({ length: 120 }, (_, i) =>
      leadRecord({ id: `l${i}`, pipeline_id: "p1", stage_id: i % 3 === 0 ? "won" : i % 3 === 1 ? "lost" : "nowhere", updated_at: stamp(i) }),
    ),
    tasks: [taskRecord({ id: "t1", updated_at: stamp(1) })],
    calls: [callRecord({ id: "k1", updated_at: stamp(1) })],
    events: [eventRecord({ id: "e1", lead_id: "l1", created_at: stamp(1), updated_at: undefined })],
  };
}

beforeAll(async () => {
  harness = await createSyncHarness();
  server = await startSourceServer(crmSource(() => data, { token: TOKEN }));
});
afterAll(async () => {
  await server.close();
  await harness.close();
});

describe("a full run", () => {
  test("entities sync in the spec's order: pipelines (with stages), users, contacts, leads, tasks, calls, events", async () => {
    data = fullCrm();
    server.requests.length = 0;
    const connection = await harness.addConnection({ baseUrl: server.baseUrl, token: TOKEN });
    const summary = await harness.sync(connection);

    expect(entityOrder(server.requests)).toEqual(["/pipelines", "/users", "/contacts", "/leads", "/tasks", "/calls", "/events"]);
    expect(summary.status).toBe("succeeded");
    expect(summary.entities.map((row) => row.entity)).toEqual([...SUMMARY_ENTITIES]);
    expect(summary.entities.map((row) => [row.entity, row.status, row.pages, row.records])).toEqual([
      ["pipelines", "succeeded", 1, 1],
      ["stages", "succeeded", 1, 3],
      ["users", "succeeded", 1, 2],
      ["contacts", "succeeded", 3, 250],
      ["leads", "succeeded", 2, 120],
      ["tasks", "succeeded", 1, 1],
      ["calls", "succeeded", 1, 1],
      ["events", "succeeded", 1, 1],
    ]);
    expect(summary.unresolved_won_lost).toBe(40);
    expect(summary.finished_at).not.toBeNull();
    expect(await harness.listAll(connection.id, "contacts")).toHaveLength(250);
    const leads = await harness.listAll(connection.id, "leads");
    expect(leads.filter((lead) => lead["is_won"])).toHaveLength(40);
    expect(leads.filter((lead) => lead["is_lost"])).toHaveLength(40);
  });

  test("structured log lines per page and per entity, and never the source token", async () => {
    const pageLines = harness.logger.lines.filter((line) => line["message"] === "page committed");
    const entityLines = harness.logger.lines.filter((line) => line["message"] === "entity finished");
    expect(pageLines.length).toBeGreaterThanOrEqual(10);
    expect(pageLines[0]).toMatchObject({ level: "info", entity: "pipelines", page: 1 });
    expect(entityLines.map((line) => line["entity"])).toEqual(["pipelines", "users", "contacts", "leads", "tasks", "calls", "events"]);
    expect(JSON.stringify(harness.logger.lines)).not.toContain(TOKEN);
  });
});
