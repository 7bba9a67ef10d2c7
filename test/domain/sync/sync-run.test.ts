import { beforeAll, describe, expect, test } from "vitest";
import { SUMMARY_ENTITIES } from "../../../lambdas/domain/core/entities";
import { callRecord, eventRecord, taskRecord } from "../../builders/source-records";
import { minuteStamp, smallContacts, smallCrm, smallLeads, smallPipeline } from "../../builders/small-crm";
import { crmSource, entityOrder, type CrmData } from "../../support/crm-source";
import type { SourceServer } from "../../support/source-server";
import { useSourceServers } from "../../support/source-servers";
import { useSyncHarness } from "../../support/sync-harness";

const TOKEN = "sync-run-token-1b6e";
const harness = useSyncHarness();
const serve = useSourceServers("all");
let server: SourceServer;
let data: CrmData = {};

/** The small CRM grown to several pages: 250 contacts and 120 leads, a third of them won, lost, or in a stage p1 does not have. */
function fullCrm(): CrmData {
  return {
    ...smallCrm(),
    pipelines: [smallPipeline("open", "won", "lost")],
    contacts: smallContacts(250),
    leads: smallLeads(120, (i) => ({ stage_id: ["won", "lost", "nowhere"][i % 3] })),
    // An orphan task and call (lead-1 is not synced), and an event without updated_at.
    tasks: [taskRecord({ id: "t1", updated_at: minuteStamp(1) })],
    calls: [callRecord({ id: "k1", updated_at: minuteStamp(1) })],
    events: [eventRecord({ id: "e1", lead_id: "l1", created_at: minuteStamp(1), updated_at: undefined })],
  };
}

beforeAll(async () => {
  server = await serve(crmSource(() => data, { token: TOKEN }));
});

describe("a full run", () => {
  test("entities sync in the spec's order: pipelines (with stages), users, contacts, leads, tasks, calls, events", async () => {
    data = fullCrm();
    server.requests.length = 0;
    const connection = await harness().addConnection({ baseUrl: server.baseUrl, token: TOKEN });
    const summary = await harness().sync(connection);

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
    expect(await harness().listAll(connection.id, "contacts")).toHaveLength(250);
    const leads = await harness().listAll(connection.id, "leads");
    expect(leads.filter((lead) => lead["is_won"])).toHaveLength(40);
    expect(leads.filter((lead) => lead["is_lost"])).toHaveLength(40);
  });

  test("structured log lines per page and per entity, and never the source token", async () => {
    const pageLines = harness().logger.lines.filter((line) => line["message"] === "page committed");
    const entityLines = harness().logger.lines.filter((line) => line["message"] === "entity finished");
    expect(pageLines.length).toBeGreaterThanOrEqual(10);
    expect(pageLines[0]).toMatchObject({ level: "info", entity: "pipelines", page: 1 });
    expect(entityLines.map((line) => line["entity"])).toEqual(["pipelines", "users", "contacts", "leads", "tasks", "calls", "events"]);
    expect(JSON.stringify(harness().logger.lines)).not.toContain(TOKEN);
  });
});
