import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { COLLECTIONS, SUMMARY_ENTITIES, type Collection } from "../../../lambdas/domain/core/entities";
import {
  callRecord,
  contactRecord,
  eventRecord,
  leadRecord,
  pipelineRecord,
  stageRecord,
  taskRecord,
  userRecord,
} from "../../builders/source-records";
import { crmSource, type CrmData } from "../../support/crm-source";
import { CONNECTIONS_PATH, startSourcedConnection, type ApiHarness, type SourcedConnection } from "../../support/api-harness";
import type { SourceHandler, SourceServer } from "../../support/source-server";

const SOURCE_TOKEN = "src-syncs-api-93ac";

/** Data for every entity, with the timestamp forms the spec allows and the lead states it derives. */
const DATA: CrmData = {
  pipelines: [
    pipelineRecord({ id: "pipeline-1" }),
    // The same stage id in a second pipeline is a second stage row.
    pipelineRecord({ id: "pipeline-2", name: "Renewals", stages: [stageRecord(), stageRecord({ id: "stage-p2-won", kind: "WON" })] }),
  ],
  users: [userRecord(), userRecord({ id: "user-2", is_active: undefined }), userRecord({ id: "user-3", is_active: false })],
  contacts: [
    contactRecord(),
    contactRecord({ id: "contact-2", created_at: "2026-02-01 08:00:00", updated_at: "2026-02-02T12:00:00+02:00" }),
    contactRecord({ id: "contact-3", created_at: "not a date", updated_at: "2026-02-03" }),
  ],
  leads: [
    leadRecord({ id: "lead-1", updated_at: "2026-02-03T08:00:00Z" }),
    leadRecord({ id: "lead-2", stage_id: "stage-won", closed_at: "2026-02-10T12:00:00+01:00", updated_at: "2026-02-03T08:01:00Z" }),
    leadRecord({ id: "lead-3", stage_id: "stage-lost", loss_reason: "too expensive", updated_at: "2026-02-03T08:02:00Z" }),
    leadRecord({ id: "lead-4", stage_id: "stage-lost", loss_reason: "too expensive", contact_ids: ["contact-2", "contact-3"], updated_at: "2026-02-03T08:03:00Z" }),
    leadRecord({ id: "lead-5", stage_id: "stage-lost", loss_reason: "chose a competitor", is_deleted: true, updated_at: "2026-02-03T08:04:00Z" }),
    // A stage /pipelines never returned: neither won nor lost, and counted as unresolved.
    leadRecord({ id: "lead-6", stage_id: "stage-gone", is_won: true, contact_ids: [], updated_at: "2026-02-03T08:05:00" }),
  ],
  tasks: [
    taskRecord(),
    taskRecord({ id: "task-2", lead_id: null, contact_id: "contact-1", updated_at: "2026-02-04T09:00:00Z" }),
    taskRecord({ id: "task-3", is_completed: true, completed_at: "2026-02-05", updated_at: "2026-02-05T09:00:00Z" }),
  ],
  calls: [
    callRecord({ recording_quality: "hd", recording_link: "https://rec.example.com/1" }),
    callRecord({ id: "call-2", direction: "in", updated_at: "2026-02-04T10:03:00Z" }),
    callRecord({ id: "call-3", lead_id: null, contact_id: "contact-1", updated_at: "2026-02-04T10:04:00Z" }),
  ],
  events: [
    eventRecord({ created_by: "user-1", channel: "web" }),
    eventRecord({ id: "event-2", type: "note", value_before: null, value_after: { text: "hi" }, created_at: "2026-02-05T11:00:00Z", updated_at: undefined }),
    eventRecord({ id: "event-3", created_at: "2026-02-05T12:00:00Z", updated_at: "2026-02-05T12:00:00Z" }),
  ],
};

const EXPECTED_COUNTS: Readonly<Record<Collection, number>> = {
  pipelines: 2,
  stages: 5,
  users: 3,
  contacts: 3,
  leads: 6,
  tasks: 3,
  calls: 3,
  events: 3,
  loss_reasons: 2,
};

const SUMMARY_FIELDS = ["connection_id", "entities", "finished_at", "id", "started_at", "status", "unresolved_won_lost"];
const ENTITY_FIELDS = ["entity", "error", "failure", "findings", "pages", "records", "status", "waits"];
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

let api: ApiHarness;
let env: SourcedConnection;
let source: SourceServer;
let owner: string;
let connectionId: string;
/** While set, /users answers only once it resolves: the run stays in progress. */
let usersGate: Promise<void> | null = null;
/** Called when a request for /users arrives (a gate the test can wait on). */
let onUsers: () => void = () => {};
let firstRunId: string;
let secondRunId: string;

const conn = (rest = "") => `${CONNECTIONS_PATH}/${connectionId}${rest}`;
const handler = crmSource(() => DATA, { token: SOURCE_TOKEN });

beforeAll(async () => {
  const serve: SourceHandler = async (request) => {
    if (request.path === "/users") onUsers();
    if (request.path === "/users" && usersGate !== null) await usersGate;
    return handler(request);
  };
  env = await startSourcedConnection("acct-syncs", serve, { token: SOURCE_TOKEN, syncSince: "2026-01-01T00:00:00Z" });
  ({ api, owner, connectionId, source } = env);
});
afterAll(() => env.close());

describe("POST /connections/{id}/syncs", () => {
  test("202 with { id, status: running }; a second POST while it runs gets 202 with the same id", async () => {
    let release!: () => void;
    usersGate = new Promise<void>((resolve) => (release = resolve));
    const reachedUsers = new Promise<void>((resolve) => (onUsers = resolve));
    try {
      const first = await api.request("POST", conn("/syncs"), { token: owner });
      expect(first.status).toBe(202);
      expect(first.body).toEqual({ id: expect.any(String), status: "running" });
      firstRunId = first.body.id;

      // The run is mid-flight: pipelines done, /users held.
      await reachedUsers;
      const second = await api.request("POST", conn("/syncs"), { token: owner });
      expect(second.status).toBe(202);
      expect(second.body).toEqual({ id: firstRunId, status: "running" });

      const running = await api.request("GET", conn(`/syncs/${firstRunId}`), { token: owner });
      expect(running.body).toMatchObject({ id: firstRunId, status: "running", finished_at: null });
      expect((await api.request("GET", conn("/syncs"), { token: owner })).body.data).toHaveLength(1);
    } finally {
      usersGate = null;
      onUsers = () => {};
      release();
    }
    const summary = await api.waitForRun(connectionId, firstRunId);
    expect(summary.status).toBe("succeeded");
  });

  test("after the run ends, a POST starts a new run with a new id", async () => {
    const next = await api.request("POST", conn("/syncs"), { token: owner });
    expect(next.status).toBe(202);
    expect(next.body).toEqual({ id: expect.any(String), status: "running" });
    expect(next.body.id).not.toBe(firstRunId);
    secondRunId = next.body.id;
    expect((await api.waitForRun(connectionId, secondRunId)).status).toBe("succeeded");
  });
});

describe("GET /connections/{id}/syncs and /syncs/{runId}", () => {
  test("{ data: [...] }, newest first, each with exactly the summary fields", async () => {
    const list = await api.request("GET", conn("/syncs"), { token: owner });
    expect(list.status).toBe(200);
    expect(Object.keys(list.body)).toEqual(["data"]);
    expect(list.body.data.map((run: { id: string }) => run.id)).toEqual([secondRunId, firstRunId]);
    expect(Date.parse(list.body.data[0].started_at)).toBeGreaterThanOrEqual(Date.parse(list.body.data[1].started_at));
    for (const run of list.body.data) {
      expect(Object.keys(run).sort()).toEqual(SUMMARY_FIELDS);
      expect(run).toMatchObject({ connection_id: connectionId, status: "succeeded", started_at: expect.stringMatching(ISO_UTC), finished_at: expect.stringMatching(ISO_UTC) });
      expect(run.entities.map((row: { entity: string }) => row.entity)).toEqual([...SUMMARY_ENTITIES]);
      for (const row of run.entities) {
        expect(Object.keys(row).sort()).toEqual(ENTITY_FIELDS);
        expect(row).toMatchObject({ status: "succeeded", error: null });
      }
    }
  });

  test("the full run counted every entity's records and the one unresolved lead", async () => {
    const first = await api.request("GET", conn(`/syncs/${firstRunId}`), { token: owner });
    const records = Object.fromEntries(first.body.entities.map((row: { entity: string; records: number }) => [row.entity, row.records]));
    expect(records).toEqual({ pipelines: 2, stages: 5, users: 3, contacts: 3, leads: 6, tasks: 3, calls: 3, events: 3 });
    expect(first.body.unresolved_won_lost).toBe(1);
    expect(first.body.entities.find((row: { entity: string }) => row.entity === "leads").pages).toBe(1);
  });

  test("GET /syncs/{runId} is one summary, the same as in the list", async () => {
    const list = await api.request("GET", conn("/syncs"), { token: owner });
    for (const run of list.body.data) {
      const one = await api.request("GET", conn(`/syncs/${run.id}`), { token: owner });
      expect(one.status).toBe(200);
      expect(one.body).toEqual(run);
    }
  });

  test("an unknown runId is a 404; so is another connection's runId", async () => {
    const unknown = await api.request("GET", conn("/syncs/20260101T000000000Z-nothing"), { token: owner });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe("not_found");
    const other = await api.request("POST", CONNECTIONS_PATH, { token: owner, body: { base_url: source.baseUrl, token: SOURCE_TOKEN } });
    const crossed = await api.request("GET", `${CONNECTIONS_PATH}/${other.body.id}/syncs/${firstRunId}`, { token: owner });
    expect(crossed.status).toBe(404);
    expect(crossed.body.error.code).toBe("not_found");
    expect((await api.request("GET", `${CONNECTIONS_PATH}/${other.body.id}/syncs`, { token: owner })).body).toEqual({ data: [] });
  });
});

describe("GET /connections/{id}/records/{entity} after a full sync", () => {
  const all: Partial<Record<Collection, Array<Record<string, any>>>> = {};
  const byId = (collection: Collection, id: string) => all[collection]!.find((record) => record["id"] === id)!;
  const identity = (collection: Collection, record: Record<string, any>) =>
    collection === "stages" ? `${record["pipeline_id"]}/${record["id"]}` : String(record["id"]);

  beforeAll(async () => {
    for (const entity of COLLECTIONS) {
      const page = await api.request("GET", conn(`/records/${entity}?limit=1000`), { token: owner });
      expect(page.status).toBe(200);
      expect(Object.keys(page.body).sort()).toEqual(["data", "next_cursor"]);
      expect(page.body.next_cursor).toBeNull();
      all[entity] = page.body.data;
    }
  });

  test.each(COLLECTIONS)("%s: { data, next_cursor } with every record", (entity) => {
    expect(all[entity]).toHaveLength(EXPECTED_COUNTS[entity]);
    expect(new Set(all[entity]!.map((record) => identity(entity, record))).size).toBe(EXPECTED_COUNTS[entity]);
  });

  test("without a limit, one page of at most 100 and the same records", async () => {
    const page = await api.request("GET", conn("/records/leads"), { token: owner });
    expect(page.body).toEqual({ data: all.leads, next_cursor: null });
  });

  test("leads carry is_won, is_lost, is_deleted, contact_id and loss_reason_id", () => {
    for (const lead of all.leads!) {
      expect(lead).toHaveProperty("is_won", expect.any(Boolean));
      expect(lead).toHaveProperty("is_lost", expect.any(Boolean));
      expect(lead).toHaveProperty("is_deleted", expect.any(Boolean));
      expect(lead).toHaveProperty("contact_id");
      expect(lead).toHaveProperty("loss_reason_id");
    }
    expect(byId("leads", "lead-1")).toMatchObject({ is_won: false, is_lost: false, is_deleted: false, contact_id: "contact-1", loss_reason_id: null });
    expect(byId("leads", "lead-2")).toMatchObject({ is_won: true, is_lost: false, closed_at: "2026-02-10T11:00:00.000Z" });
    expect(byId("leads", "lead-3")).toMatchObject({ is_won: false, is_lost: true, loss_reason_id: expect.any(String) });
    expect(byId("leads", "lead-4")).toMatchObject({ is_lost: true, contact_id: "contact-2" });
    expect(byId("leads", "lead-5")).toMatchObject({ is_lost: true, is_deleted: true });
    // The source's is_won is ignored: an unresolved stage is neither won nor lost.
    expect(byId("leads", "lead-6")).toMatchObject({ is_won: false, is_lost: false, contact_id: null, updated_at: "2026-02-03T08:05:00.000Z" });
    // Identical text, one loss reason.
    expect(byId("leads", "lead-4")["loss_reason_id"]).toBe(byId("leads", "lead-3")["loss_reason_id"]);
    expect(byId("leads", "lead-5")["loss_reason_id"]).not.toBe(byId("leads", "lead-3")["loss_reason_id"]);
  });

  test("loss_reasons are { id, text }, and the leads' loss_reason_id points at them", () => {
    for (const reason of all.loss_reasons!) expect(Object.keys(reason).sort()).toEqual(["id", "text"]);
    expect(all.loss_reasons!.map((reason) => reason["text"]).sort()).toEqual(["chose a competitor", "too expensive"]);
    const ids = new Set(all.loss_reasons!.map((reason) => reason["id"]));
    for (const lead of all.leads!) if (lead["loss_reason_id"] !== null) expect(ids.has(lead["loss_reason_id"])).toBe(true);
    const tooExpensive = all.loss_reasons!.find((reason) => reason["text"] === "too expensive")!;
    expect(byId("leads", "lead-3")["loss_reason_id"]).toBe(tooExpensive["id"]);
  });

  test("stages carry pipeline_id: the same stage id in two pipelines is two rows", () => {
    for (const stage of all.stages!) expect(["pipeline-1", "pipeline-2"]).toContain(stage["pipeline_id"]);
    const stageNew = all.stages!.filter((stage) => stage["id"] === "stage-new").map((stage) => stage["pipeline_id"]).sort();
    expect(stageNew).toEqual(["pipeline-1", "pipeline-2"]);
    expect(all.stages!.find((stage) => stage["id"] === "stage-p2-won")).toMatchObject({ pipeline_id: "pipeline-2", kind: "won" });
    expect(all.pipelines!.every((pipeline) => !("stages" in pipeline))).toBe(true);
  });

  test("calls and events carry raw", () => {
    for (const call of all.calls!) expect(call).toHaveProperty("raw", expect.any(Object));
    expect(byId("calls", "call-1")["raw"]).toEqual({ recording_quality: "hd" });
    expect(byId("calls", "call-2")["raw"]).toEqual({});
    for (const event of all.events!) expect(event).toHaveProperty("raw", expect.any(Object));
    const event1 = byId("events", "event-1")["raw"];
    expect(event1).toMatchObject({ id: "event-1", lead_id: "lead-1", channel: "web", value_before: "stage-new" });
    expect(event1).not.toHaveProperty("created_by");
  });

  test("every timestamp is an ISO-8601 UTC string or null", () => {
    let checked = 0;
    for (const entity of COLLECTIONS) {
      for (const record of all[entity]!) {
        for (const [key, value] of Object.entries(record)) {
          if (!key.endsWith("_at")) continue;
          checked += 1;
          if (value !== null) expect(value, `${entity} ${record["id"]} ${key}`).toMatch(ISO_UTC);
        }
      }
    }
    expect(checked).toBeGreaterThan(30);
    expect(byId("contacts", "contact-2")).toMatchObject({ created_at: "2026-02-01T08:00:00.000Z", updated_at: "2026-02-02T10:00:00.000Z" });
    expect(byId("contacts", "contact-3")).toMatchObject({ created_at: null, updated_at: "2026-02-03T00:00:00.000Z" });
    expect(byId("tasks", "task-3")).toMatchObject({ completed_at: "2026-02-05T00:00:00.000Z" });
  });

  test.each(COLLECTIONS)("%s: paging with limit=2 walks every record exactly once and ends with next_cursor null", async (entity) => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: string = cursor === null ? "?limit=2" : `?limit=2&cursor=${encodeURIComponent(cursor)}`;
      const page = await api.request("GET", conn(`/records/${entity}${query}`), { token: owner });
      expect(page.status).toBe(200);
      expect(page.body.data.length).toBeGreaterThan(0);
      expect(page.body.data.length).toBeLessThanOrEqual(2);
      seen.push(...page.body.data.map((record: Record<string, any>) => identity(entity, record)));
      cursor = page.body.next_cursor;
      pages += 1;
      expect(pages).toBeLessThanOrEqual(EXPECTED_COUNTS[entity]);
    } while (cursor !== null);
    expect(seen).toEqual(all[entity]!.map((record) => identity(entity, record)));
    expect(new Set(seen).size).toBe(seen.length);
    expect(pages).toBe(Math.ceil(EXPECTED_COUNTS[entity] / 2));
  });
});
