import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { pipelineRecord } from "../../builders/source-records";
import { crmSource } from "../../support/crm-source";
import { createApiHarness, CONNECTIONS_PATH, type ApiHarness } from "../../support/api-harness";
import { startSourceServer, type SourceServer } from "../../support/source-server";
import { runHoldingLock } from "../../builders/page-runs";

const SOURCE_TOKEN = "src-connections-api-4c1f9e";
let api: ApiHarness;
let source: SourceServer;
let owner: string;
let acceptedToken = SOURCE_TOKEN;

beforeAll(async () => {
  api = await createApiHarness();
  source = await startSourceServer((request) =>
    crmSource(() => ({ pipelines: [pipelineRecord({ id: "p1" }), pipelineRecord({ id: "p2" })], users: [], contacts: [], leads: [] }), {
      token: acceptedToken,
    })(request),
  );
  owner = await api.token("acct-connections");
});
afterAll(async () => {
  await source.close();
  await api.close();
});

const CONNECTION_FIELDS = ["audit_schedule", "base_url", "business_account_id", "created_at", "crm_type", "freshness", "freshness_hours", "id", "idle_days", "name", "paused", "rate_limit", "schedule", "stage_event_type", "stale", "sync_since", "updated_at"];

describe("POST /connections", () => {
  test("creates the connection: 201 with exactly the Connection fields, never the token", async () => {
    const created = await api.request("POST", CONNECTIONS_PATH, {
      token: owner,
      body: { base_url: `${source.baseUrl}/api/v2///`, token: SOURCE_TOKEN, rate_limit: 7, sync_since: "2025-06-01" },
    });
    expect(created.status).toBe(201);
    expect(Object.keys(created.body).sort()).toEqual(CONNECTION_FIELDS);
    expect(created.body).toMatchObject({
      business_account_id: "acct-connections",
      crm_type: "custom",
      base_url: `${source.baseUrl}/api/v2`,
      rate_limit: 7,
      sync_since: "2025-06-01T00:00:00.000Z",
    });
    expect(created.text).not.toContain(SOURCE_TOKEN);
  });

  test("defaults: rate_limit 5 and sync_since 1 January of the current year, 00:00 UTC", async () => {
    const created = await api.request("POST", CONNECTIONS_PATH, { token: owner, body: { base_url: source.baseUrl, token: SOURCE_TOKEN } });
    expect(created.status).toBe(201);
    expect(created.body.rate_limit).toBe(5);
    expect(created.body.sync_since).toBe(`${new Date().getUTCFullYear()}-01-01T00:00:00.000Z`);
  });

  test("trigger_sync: true queues a full sync", async () => {
    const created = await api.request("POST", CONNECTIONS_PATH, {
      token: owner,
      body: { base_url: source.baseUrl, token: SOURCE_TOKEN, trigger_sync: true },
    });
    const runs = await api.request("GET", `${CONNECTIONS_PATH}/${created.body.id}/syncs`, { token: owner });
    expect(runs.body.data).toHaveLength(1);
    // Let the run end here: its requests to the shared source must not land in a later test's count.
    await api.waitForRun(created.body.id, runs.body.data[0].id);
  });
});

describe("GET /connections and /connections/{id}", () => {
  test("the list is { data: [...] } of this workspace's connections only", async () => {
    const other = await api.token("acct-someone-else");
    await api.request("POST", CONNECTIONS_PATH, { token: other, body: { base_url: source.baseUrl, token: "other-token" } });
    const mine = await api.request("GET", CONNECTIONS_PATH, { token: owner });
    expect(mine.status).toBe(200);
    expect(mine.body.data.length).toBeGreaterThan(0);
    expect(mine.body.data.every((connection: { business_account_id: string }) => connection.business_account_id === "acct-connections")).toBe(true);
    const theirs = await api.request("GET", CONNECTIONS_PATH, { token: other });
    expect(theirs.body.data).toHaveLength(1);
  });

  test("GET one returns the Connection", async () => {
    const created = await api.request("POST", CONNECTIONS_PATH, { token: owner, body: { base_url: source.baseUrl, token: SOURCE_TOKEN } });
    const fetched = await api.request("GET", `${CONNECTIONS_PATH}/${created.body.id}`, { token: owner });
    expect(fetched.status).toBe(200);
    expect(fetched.body).toEqual(created.body);
  });

  test("schedule: GET one shows the dispatcher's configured interval, and null when the service was not told it", async () => {
    // A second service on the same table, composed as the local runtime composes it with SCHEDULE=15m.
    const scheduled = await createApiHarness({ shareStore: api.store, schedule: "15m" });
    try {
      const created = await api.request("POST", CONNECTIONS_PATH, { token: owner, body: { base_url: source.baseUrl, token: SOURCE_TOKEN } });
      expect(created.body.schedule).toBeNull();
      const fetched = await scheduled.request("GET", `${CONNECTIONS_PATH}/${created.body.id}`, { token: await scheduled.token("acct-connections") });
      expect(fetched.status).toBe(200);
      // The schedule also sets the default freshness_hours: twice 15 minutes, rounded up to an hour.
      expect(fetched.body).toEqual({ ...created.body, schedule: "15m", freshness_hours: 1 });
      const listed = await scheduled.request("GET", CONNECTIONS_PATH, { token: await scheduled.token("acct-connections") });
      expect(listed.body.data.every((connection: { schedule: string | null }) => connection.schedule === "15m")).toBe(true);
    } finally {
      await scheduled.close();
    }
  });
});

describe("GET /connections: an overview, each connection with its last run and open findings (one request for a dashboard)", () => {
  test("null before a run; then the newest run in brief, and the findings of the newest successful one, kept when a later run fails", async () => {
    const created = await api.request("POST", CONNECTIONS_PATH, { token: owner, body: { base_url: source.baseUrl, token: SOURCE_TOKEN, rate_limit: 1000 } });
    const id = created.body.id as string;
    const overview = async () => ((await api.request("GET", CONNECTIONS_PATH, { token: owner })).body.data as Record<string, unknown>[]).find((item) => item["id"] === id)!;
    const before = await overview();
    expect(Object.keys(before).sort()).toEqual([...CONNECTION_FIELDS, "health", "last_run", "open_findings"].sort());
    expect(before).toMatchObject({ last_run: null, open_findings: null, health: { healthy: true, run_id: null, failed_entities: [] } });

    const first = (await api.request("POST", `${CONNECTIONS_PATH}/${id}/syncs`, { token: owner })).body.id as string;
    const run = await api.waitForRun(id, first);
    expect((await overview())["last_run"]).toEqual({
      id: first,
      status: "succeeded",
      started_at: run.started_at,
      finished_at: run.finished_at,
      records: run.entities.reduce((sum, row) => sum + row.records, 0),
      failed_entities: [],
    });
    expect((await overview())["open_findings"]).toEqual({ run_id: first, findings: 0, errors: 0, records: 0, new: 0 });

    acceptedToken = "a-token-the-service-does-not-have";
    try {
      const second = (await api.request("POST", `${CONNECTIONS_PATH}/${id}/syncs`, { token: owner })).body.id as string;
      expect((await api.waitForRun(id, second)).status).toBe("failed");
      const after = await overview();
      expect(after["last_run"]).toMatchObject({ id: second, status: "failed", failed_entities: expect.arrayContaining(["pipelines"]) });
      expect(after["open_findings"]).toMatchObject({ run_id: first });
      // A 401 fails every entity: the required ones (stages with pipelines) keep the connection unhealthy.
      expect(after["health"]).toEqual({ healthy: false, run_id: second, failed_entities: ["pipelines", "stages", "users", "contacts", "leads"] });
    } finally {
      acceptedToken = SOURCE_TOKEN;
    }
  });
});

describe("name: optional, 1 to 100 characters, set on POST and PATCH, returned everywhere", () => {
  test("POST with a name (trimmed) returns it; GET one and the list return it; without one it is null", async () => {
    const named = await api.request("POST", CONNECTIONS_PATH, { token: owner, body: { name: "  Acme CRM (EU)  ", base_url: source.baseUrl, token: SOURCE_TOKEN } });
    expect(named.status).toBe(201);
    expect(named.body.name).toBe("Acme CRM (EU)");
    const unnamed = await api.request("POST", CONNECTIONS_PATH, { token: owner, body: { base_url: source.baseUrl, token: SOURCE_TOKEN } });
    expect(unnamed.body.name).toBeNull();
    expect((await api.request("GET", `${CONNECTIONS_PATH}/${named.body.id}`, { token: owner })).body.name).toBe("Acme CRM (EU)");
    const listed = (await api.request("GET", CONNECTIONS_PATH, { token: owner })).body.data as { id: string; name: string | null }[];
    expect(listed.find((connection) => connection.id === named.body.id)?.name).toBe("Acme CRM (EU)");
    expect(listed.find((connection) => connection.id === unnamed.body.id)?.name).toBeNull();
  });

  test("100 characters is accepted; PATCH sets a name, a PATCH without one keeps it, and name: null removes it", async () => {
    const created = await api.request("POST", CONNECTIONS_PATH, { token: owner, body: { name: "é".repeat(100), base_url: source.baseUrl, token: SOURCE_TOKEN } });
    expect(created.status).toBe(201);
    const path = `${CONNECTIONS_PATH}/${created.body.id}`;
    expect((await api.request("PATCH", path, { token: owner, body: { name: "Renamed" } })).body.name).toBe("Renamed");
    const kept = await api.request("PATCH", path, { token: owner, body: { rate_limit: 3 } });
    expect(kept.body).toMatchObject({ name: "Renamed", rate_limit: 3 });
    const cleared = await api.request("PATCH", path, { token: owner, body: { name: null } });
    expect(cleared.status).toBe(200);
    expect(cleared.body.name).toBeNull();
    expect(await api.sync.connections.get("acct-connections", created.body.id)).not.toHaveProperty("name");
    expect((await api.request("GET", path, { token: owner })).body.name).toBeNull();
  });
});

describe("PATCH /connections/{id}", () => {
  test("changes any of base_url, token, rate_limit, sync_since: 200 with the Connection", async () => {
    const created = await api.request("POST", CONNECTIONS_PATH, { token: owner, body: { base_url: source.baseUrl, token: SOURCE_TOKEN } });
    const patched = await api.request("PATCH", `${CONNECTIONS_PATH}/${created.body.id}`, {
      token: owner,
      body: { rate_limit: 12, base_url: `${source.baseUrl}/`, sync_since: "2024-02-29T12:00:00+02:00" },
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ id: created.body.id, rate_limit: 12, base_url: source.baseUrl, sync_since: "2024-02-29T10:00:00.000Z" });
    expect(patched.body.created_at).toBe(created.body.created_at);
    expect(Object.keys(patched.body).sort()).toEqual(CONNECTION_FIELDS);
  });

  test("token rotation: after PATCH token, the test call uses the new token", async () => {
    const created = await api.request("POST", CONNECTIONS_PATH, { token: owner, body: { base_url: source.baseUrl, token: SOURCE_TOKEN } });
    acceptedToken = "src-rotated-token-77aa";
    try {
      const before = await api.request("POST", `${CONNECTIONS_PATH}/${created.body.id}/test`, { token: owner });
      expect(before.body.authenticated).toBe(false);
      await api.request("PATCH", `${CONNECTIONS_PATH}/${created.body.id}`, { token: owner, body: { token: acceptedToken } });
      const after = await api.request("POST", `${CONNECTIONS_PATH}/${created.body.id}/test`, { token: owner });
      expect(after.body).toMatchObject({ reachable: true, authenticated: true, pipelines_found: 2 });
      expect(api.responses.join("\n")).not.toContain(acceptedToken);
    } finally {
      acceptedToken = SOURCE_TOKEN;
    }
  });

  test("a changed sync_since clears the watermarks: the next run reads every entity from the new date", async () => {
    const created = await api.request("POST", CONNECTIONS_PATH, { token: owner, body: { base_url: source.baseUrl, token: SOURCE_TOKEN } });
    const id = created.body.id as string;
    const run = await runHoldingLock(api.sync.runs, id);
    await api.sync.records.commitPage(run.page({ connectionId: id, records: [], watermark: { entity: "leads", value: "2026-05-01T00:00:00.000Z" } }));
    await api.sync.runs.finish(id, run.runId, { status: "succeeded", finishedAt: "2026-05-01T00:00:00.000Z" });
    await api.request("PATCH", `${CONNECTIONS_PATH}/${id}`, { token: owner, body: { rate_limit: 3 } });
    expect(await api.sync.records.getWatermark(id, "leads")).toBe("2026-05-01T00:00:00.000Z");
    await api.request("PATCH", `${CONNECTIONS_PATH}/${id}`, { token: owner, body: { sync_since: "2025-01-01T00:00:00Z" } });
    expect(await api.sync.records.getWatermark(id, "leads")).toBeNull();
  });
});

describe("DELETE /connections/{id}", () => {
  test("204; the connection is gone and stops syncing", async () => {
    const created = await api.request("POST", CONNECTIONS_PATH, { token: owner, body: { base_url: source.baseUrl, token: SOURCE_TOKEN } });
    const deleted = await api.request("DELETE", `${CONNECTIONS_PATH}/${created.body.id}`, { token: owner });
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe("");
    expect((await api.request("GET", `${CONNECTIONS_PATH}/${created.body.id}`, { token: owner })).status).toBe(404);
    const scheduled = (await api.sync.connections.listAll()).map((connection) => connection.id);
    expect(scheduled).not.toContain(created.body.id);
  });
});

describe("POST /connections/{id}/test", () => {
  test("success: reachable, authenticated, a detail, and pipelines_found from a live request for the first page of /pipelines", async () => {
    const created = await api.request("POST", CONNECTIONS_PATH, { token: owner, body: { base_url: source.baseUrl, token: SOURCE_TOKEN } });
    source.requests.length = 0;
    const tested = await api.request("POST", `${CONNECTIONS_PATH}/${created.body.id}/test`, { token: owner });
    expect(tested.status).toBe(200);
    expect(tested.body).toEqual({ reachable: true, authenticated: true, detail: expect.stringContaining("200"), pipelines_found: 2 });
    expect(source.requests).toHaveLength(1);
    expect(source.requests[0]).toMatchObject({ path: "/pipelines", query: { limit: "100", page: "1" } });
    expect(source.requests[0]?.headers.authorization).toBe(`Bearer ${SOURCE_TOKEN}`);
  });

  test("a 401 from the source: reachable, not authenticated, and no pipelines_found", async () => {
    const created = await api.request("POST", CONNECTIONS_PATH, { token: owner, body: { base_url: source.baseUrl, token: "wrong-token" } });
    const tested = await api.request("POST", `${CONNECTIONS_PATH}/${created.body.id}/test`, { token: owner });
    expect(tested.status).toBe(200);
    expect(tested.body).toEqual({ reachable: true, authenticated: false, detail: expect.stringContaining("401") });
  });

  test("a source that cannot be reached: not reachable, not authenticated", async () => {
    const closed = await startSourceServer(() => ({ status: 200 }));
    const baseUrl = closed.baseUrl;
    await closed.close();
    const created = await api.request("POST", CONNECTIONS_PATH, { token: owner, body: { base_url: baseUrl, token: SOURCE_TOKEN } });
    const tested = await api.request("POST", `${CONNECTIONS_PATH}/${created.body.id}/test`, { token: owner });
    expect(tested.body).toEqual({ reachable: false, authenticated: false, detail: expect.stringMatching(/could not be reached/) });
  });

  test.each([
    [403, { reachable: true, authenticated: false }, /403/],
    [404, { reachable: true, authenticated: true }, /404 \(a required endpoint is not implemented\)/],
    [503, { reachable: true, authenticated: true }, /failed \(503\)/],
  ] as const)("the source answers %i: reachable and authenticated as docs/onboarding-api.md says, no pipelines_found", async (status, expected, detail) => {
    const answering = await startSourceServer(() => ({ status, json: { error: `status ${status}` } }));
    try {
      const created = await api.request("POST", CONNECTIONS_PATH, { token: owner, body: { base_url: answering.baseUrl, token: SOURCE_TOKEN } });
      const tested = await api.request("POST", `${CONNECTIONS_PATH}/${created.body.id}/test`, { token: owner });
      expect(tested.status).toBe(200);
      expect(tested.body).toEqual({ ...expected, detail: expect.stringMatching(detail) });
      // The test call makes one request: no retries, whatever the status.
      expect(answering.requests).toHaveLength(1);
    } finally {
      await answering.close();
    }
  });
});
