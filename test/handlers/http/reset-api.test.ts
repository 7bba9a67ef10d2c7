import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { callRecord, contactRecord, eventRecord, leadRecord, pipelineRecord, taskRecord, userRecord } from "../../builders/source-records";
import { CONNECTIONS_PATH } from "../../support/api-harness";
import { useHoldableSourceApi } from "../../support/holdable-crm-source";

const SOURCE_TOKEN = "src-reset-api-c4f2";
const SYNC_SINCE = "2026-01-01T00:00:00.000Z";
const INCREMENTAL = ["contacts", "leads", "tasks", "calls", "events"] as const;
const DATA = {
  pipelines: [pipelineRecord()],
  users: [userRecord()],
  contacts: [contactRecord()],
  leads: [leadRecord({ id: "lead-1", updated_at: "2026-02-03T08:00:00Z" })],
  tasks: [taskRecord()],
  calls: [callRecord()],
  events: [eventRecord()],
};

const env = useHoldableSourceApi(() => DATA, SOURCE_TOKEN, "acct-reset");

const newConnection = () => env.newConnection(SYNC_SINCE);

/** A connection after one full sync: every incremental entity has a watermark. */
async function syncedConnection(): Promise<string> {
  const id = await newConnection();
  const runId = (await env.api.request("POST", `${CONNECTIONS_PATH}/${id}/syncs`, { token: env.owner })).body.id;
  expect((await env.api.waitForRun(id, runId)).status).toBe("succeeded");
  for (const entity of INCREMENTAL) expect(await env.api.sync.records.getWatermark(id, entity)).not.toBeNull();
  return id;
}

const watermarks = async (id: string) =>
  Object.fromEntries(await Promise.all(INCREMENTAL.map(async (entity) => [entity, await env.api.sync.records.getWatermark(id, entity)])));

describe("POST /connections/{id}/reset", () => {
  test("one entity: only its watermark goes back to sync_since; the others keep theirs", async () => {
    const id = await syncedConnection();
    const before = await watermarks(id);
    const response = await env.api.request("POST", `${CONNECTIONS_PATH}/${id}/reset`, { token: env.owner, body: { entity: "leads" } });
    expect(response.status, response.text).toBe(200);
    expect(response.body).toEqual({ reset: ["leads"], run: null });
    expect(await watermarks(id)).toEqual({ ...before, leads: null });
  });

  test("no entity (an empty body, or none at all): every incremental entity goes back to sync_since", async () => {
    for (const init of [{ body: {} }, {}]) {
      const id = await syncedConnection();
      const response = await env.api.request("POST", `${CONNECTIONS_PATH}/${id}/reset`, { token: env.owner, ...init });
      expect(response.status, response.text).toBe(200);
      expect(response.body).toEqual({ reset: [...INCREMENTAL], run: null });
      expect(Object.values(await watermarks(id))).toEqual(INCREMENTAL.map(() => null));
    }
  });

  test("start_sync: the run it starts reads the reset entity from sync_since and the others from their watermarks", async () => {
    const id = await syncedConnection();
    const contactsWatermark = await env.api.sync.records.getWatermark(id, "contacts");
    const seen = env.source.requests.length;
    const response = await env.api.request("POST", `${CONNECTIONS_PATH}/${id}/reset`, { token: env.owner, body: { entity: "leads", start_sync: true } });
    expect(response.status, response.text).toBe(200);
    expect(response.body).toEqual({ reset: ["leads"], run: { id: expect.any(String), status: "running" } });
    expect((await env.api.waitForRun(id, response.body.run.id)).status).toBe("succeeded");
    const since = (path: string) => env.source.requests.slice(seen).find((request) => request.path === path)?.query["updated_since"];
    expect(Date.parse(since("/leads") ?? "")).toBe(Date.parse(SYNC_SINCE));
    expect(Date.parse(since("/contacts") ?? "")).toBeGreaterThan(Date.parse(SYNC_SINCE));
    expect(Date.parse(since("/contacts") ?? "")).toBeLessThanOrEqual(Date.parse(contactsWatermark ?? ""));
  });

  test("a running run cannot write the reset watermark back: its leads page writes nothing and the watermark stays reset", async () => {
    const id = await newConnection();
    const { runId } = await env.whileLeadsInFlight(id, async () => {
      expect((await env.api.request("POST", `${CONNECTIONS_PATH}/${id}/reset`, { token: env.owner, body: { entity: "leads" } })).status).toBe(200);
    });
    const summary = await env.api.waitForRun(id, runId);
    expect(summary.entities.find((row) => row.entity === "leads")?.status).toBe("failed");
    expect(await env.api.sync.records.getWatermark(id, "leads")).toBeNull();
    expect((await env.api.request("GET", `${CONNECTIONS_PATH}/${id}/records/leads`, { token: env.owner })).body.data).toEqual([]);
  });

  test.each([
    [{ entity: "pipelines" }, "entity", "must be one of contacts, leads, tasks, calls, events (pipelines and users are read in full on every run)"],
    [{ entity: "nope" }, "entity", "must be one of contacts, leads, tasks, calls, events (pipelines and users are read in full on every run)"],
    [{ start_sync: "yes" }, "start_sync", "must be a boolean"],
  ])("a bad body %j is a 422 naming the field and the rule, and resets nothing", async (body, field, rule) => {
    const id = await syncedConnection();
    const before = await watermarks(id);
    const response = await env.api.request("POST", `${CONNECTIONS_PATH}/${id}/reset`, { token: env.owner, body });
    expect(response.status).toBe(422);
    expect(response.body.error).toMatchObject({ code: "invalid_field", field, rule });
    expect(await watermarks(id)).toEqual(before);
  });

  test("a body that is not JSON is a 400", async () => {
    const id = await newConnection();
    expect((await env.api.request("POST", `${CONNECTIONS_PATH}/${id}/reset`, { token: env.owner, rawBody: "{nope" })).status).toBe(400);
  });
});
