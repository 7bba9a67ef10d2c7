import { describe, expect, test } from "vitest";
import { contactRecord, leadRecord, pipelineRecord, userRecord } from "../../builders/source-records";
import { CONNECTIONS_PATH } from "../../support/api-harness";
import { useHoldableSourceApi } from "../../support/holdable-crm-source";

const SOURCE_TOKEN = "src-audits-api-4d1f";
const DATA = {
  pipelines: [pipelineRecord()],
  users: [userRecord()],
  contacts: [contactRecord()],
  leads: [leadRecord({ id: "lead-1" }), leadRecord({ id: "lead-2", updated_at: "2026-02-03T09:00:00Z" })],
  tasks: [],
  calls: [],
  events: [],
};

const env = useHoldableSourceApi(() => DATA, SOURCE_TOKEN, "acct-audits");

describe("POST and GET /connections/{id}/audits", () => {
  test("POST audits answers 202 { id }; GET audits/{id} gives the audit's rows; GET audits lists them newest first", async () => {
    const id = await env.newConnection();
    const first = await env.api.request("POST", `${CONNECTIONS_PATH}/${id}/audits`, { token: env.owner });
    expect(first.status, first.text).toBe(202);
    expect(Object.keys(first.body)).toEqual(["id"]);
    await env.api.waitForRun(id, first.body.id);
    const second = await env.api.request("POST", `${CONNECTIONS_PATH}/${id}/audits`, { token: env.owner });
    expect(second.status, second.text).toBe(202);
    await env.api.waitForRun(id, second.body.id);

    const one = await env.api.request("GET", `${CONNECTIONS_PATH}/${id}/audits/${first.body.id}`, { token: env.owner });
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ id: first.body.id, status: "succeeded", started_at: expect.any(String), finished_at: expect.any(String) });
    const leads = one.body.entities.find((row: { entity: string }) => row.entity === "leads");
    // No sync has run: leads have no watermark, so both are left to the first sync (it reads from sync_since), not healed.
    expect(leads).toMatchObject({ status: "succeeded", source_records: 2, stored_records: 0, healed: { missed: 0, stale: 0, changed_without_advancing: 0 }, ahead_of_watermark: 2, absent_in_source: 0 });
    // The findings of a run summary ride on the audit too: no stages were ever synced, so neither lead resolves.
    expect(leads.findings).toEqual([expect.objectContaining({ rule: "reference.stage", count: 2 })]);
    expect(leads.sample_ids).toEqual([]);

    const list = await env.api.request("GET", `${CONNECTIONS_PATH}/${id}/audits`, { token: env.owner });
    expect(list.body.data.map((audit: { id: string }) => audit.id)).toEqual([second.body.id, first.body.id]);
    // An audit is not a sync run.
    expect((await env.api.request("GET", `${CONNECTIONS_PATH}/${id}/syncs/${first.body.id}`, { token: env.owner })).status).toBe(404);
    expect((await env.api.request("GET", `${CONNECTIONS_PATH}/${id}/syncs`, { token: env.owner })).body.data).toEqual([]);
  });

  test("one audit per connection, never while a sync of it runs: 409 naming the run or audit going on", async () => {
    const id = await env.newConnection();
    const { runId } = await env.whileLeadsInFlight(id, async (syncId) => {
      const refused = await env.api.request("POST", `${CONNECTIONS_PATH}/${id}/audits`, { token: env.owner });
      expect(refused.status).toBe(409);
      expect(refused.body.error.message).toContain(`sync run ${syncId} is going on`);
    });
    await env.api.waitForRun(id, runId);

    const again = env.holdLeads();
    try {
      const audit = await env.api.request("POST", `${CONNECTIONS_PATH}/${id}/audits`, { token: env.owner });
      expect(audit.status).toBe(202);
      await again.reached;
      const secondAudit = await env.api.request("POST", `${CONNECTIONS_PATH}/${id}/audits`, { token: env.owner });
      expect(secondAudit.status).toBe(409);
      expect(secondAudit.body.error.message).toContain(`audit ${audit.body.id} is going on`);
      const sync = await env.api.request("POST", `${CONNECTIONS_PATH}/${id}/syncs`, { token: env.owner });
      expect(sync.status).toBe(409);
      expect(sync.body.error.message).toContain(`audit ${audit.body.id} is going on`);
    } finally {
      again.release();
    }
  });

  test("unknown audits, sync run ids and ids over the key limit are 404, as is another workspace's connection", async () => {
    const id = await env.newConnection();
    for (const auditId of ["audit-20260101T000000000Z-000000", "20260101T000000000Z-000000", "a".repeat(1025)]) {
      expect((await env.api.request("GET", `${CONNECTIONS_PATH}/${id}/audits/${auditId}`, { token: env.owner })).status).toBe(404);
    }
    const stranger = await env.api.token("acct-someone-else");
    expect((await env.api.request("POST", `${CONNECTIONS_PATH}/${id}/audits`, { token: stranger })).status).toBe(404);
    expect((await env.api.request("GET", `${CONNECTIONS_PATH}/${id}/audits`, { token: stranger })).status).toBe(404);
  });
});

describe("audit_schedule on the connection", () => {
  test("audit_schedule is off or every N days, weekly by default; PATCH changes it; anything else is a 422 naming the field", async () => {
    const id = await env.newConnection();
    const url = `${CONNECTIONS_PATH}/${id}`;
    expect((await env.api.request("GET", url, { token: env.owner })).body.audit_schedule).toBe("7d");
    expect((await env.api.request("PATCH", url, { token: env.owner, body: { audit_schedule: "3d" } })).body.audit_schedule).toBe("3d");
    expect((await env.api.request("PATCH", url, { token: env.owner, body: { audit_schedule: "off" } })).body.audit_schedule).toBe("off");
    for (const wrong of ["weekly", "0d", "366d", 7]) {
      const refused = await env.api.request("PATCH", url, { token: env.owner, body: { audit_schedule: wrong } });
      expect(refused.status, JSON.stringify(wrong)).toBe(422);
      expect(refused.body.error.field).toBe("audit_schedule");
    }
    const created = await env.api.request("POST", CONNECTIONS_PATH, {
      token: env.owner,
      body: { base_url: env.source.baseUrl, token: SOURCE_TOKEN, audit_schedule: "14d" },
    });
    expect(created.body.audit_schedule).toBe("14d");
  });
});
