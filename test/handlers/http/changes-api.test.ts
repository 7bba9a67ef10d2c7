import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { Clock } from "../../../lambdas/domain/core/ports/clock";
import { contactRecord, leadRecord, pipelineRecord, userRecord } from "../../builders/source-records";
import { crmSource, type CrmData } from "../../support/crm-source";
import { CONNECTIONS_PATH, startSourcedConnection, type SourcedConnection } from "../../support/api-harness";

const SOURCE_TOKEN = "src-changes-api-5c2a";
const DAY = 24 * 60 * 60 * 1000;
const T0 = Date.parse("2026-03-01T00:00:00.000Z");
/** The service's clock, set by the test (commit times and the feed's retention as data; nothing waits on it). */
let time = T0;
const clock: Clock = { now: () => new Date(time) };

const source: CrmData = {
  pipelines: [pipelineRecord()],
  users: [userRecord()],
  contacts: [contactRecord({ id: "c1", name: "First", updated_at: "2026-01-01T00:00:00Z" }), contactRecord({ id: "c2", updated_at: "2026-01-02T00:00:00Z" })],
  leads: [leadRecord({ id: "l1", updated_at: "2026-01-01T00:00:00Z" }), leadRecord({ id: "l2", updated_at: "2026-01-02T00:00:00Z" })],
};

let env: SourcedConnection;
beforeAll(async () => {
  env = await startSourcedConnection("acct-changes", crmSource(() => source, { token: SOURCE_TOKEN }), { token: SOURCE_TOKEN, syncSince: "2020-01-01T00:00:00Z" }, { clock });
});
afterAll(() => env.close());

type Change = { entity: string; id: string; action: string; committed_at: string; run_id: string; record: Record<string, unknown> | null; pipeline_id?: string };
const feedPath = () => `${CONNECTIONS_PATH}/${env.connectionId}/changes`;
async function read(cursor: string | null, limit = 1000): Promise<{ data: Change[]; next_cursor: string }> {
  const query = new URLSearchParams({ limit: String(limit), ...(cursor === null ? {} : { cursor }) });
  const response = await env.api.request("GET", `${feedPath()}?${query}`, { token: env.owner });
  expect(response.status, response.text).toBe(200);
  return response.body;
}
async function settle(path: string, body?: unknown): Promise<string> {
  const started = await env.api.request("POST", `${CONNECTIONS_PATH}/${env.connectionId}/${path}`, { token: env.owner, ...(body === undefined ? {} : { body }) });
  const id = (started.body.run?.id ?? started.body.id) as string;
  expect((await env.api.waitForRun(env.connectionId, id)).status).toBe("succeeded");
  return id;
}

describe("GET /connections/{id}/changes", () => {
  const cursors: string[] = [];
  let run1 = "";

  test("after a first sync: every record once, in commit order across entities, each with its run and stored version", async () => {
    expect((await read(null)).data).toEqual([]);
    run1 = await settle("syncs");
    const feed = await read(null);
    const order = feed.data.map((change) => change.entity);
    // Commit order is the sync's order: pipelines (with their stages), users, contacts, leads.
    expect(order).toEqual(["pipelines", "stages", "stages", "stages", "users", "contacts", "contacts", "leads", "leads"]);
    expect(feed.data.every((change) => change.run_id === run1 && change.action === "upsert" && change.committed_at === new Date(T0).toISOString())).toBe(true);
    expect(feed.data.find((change) => change.entity === "stages")?.pipeline_id).toBe("pipeline-1");
    expect(feed.data.find((change) => change.id === "c1")?.record).toMatchObject({ id: "c1", name: "First" });
    cursors.push(feed.next_cursor);
    // Caught up: nothing more, and the cursor still resumes there.
    expect((await read(feed.next_cursor)).data).toEqual([]);
  });

  test("a second sync: exactly what it committed; the soft-deleted lead as a delete", async () => {
    time = T0 + 60 * 60 * 1000;
    source.leads = [leadRecord({ id: "l1", updated_at: "2026-01-05T00:00:00Z", is_deleted: true }), leadRecord({ id: "l2", stage_id: "stage-won", updated_at: "2026-01-06T00:00:00Z" })];
    // Changed at the source without its updated_at advancing: incremental sync misses it, an audit heals it (next test).
    source.contacts = [contactRecord({ id: "c1", name: "Renamed", updated_at: "2026-01-01T00:00:00Z" }), source.contacts![1]!];
    const run2 = await settle("syncs");
    const feed = await read(cursors[0]!);
    expect(feed.data.every((change) => change.run_id === run2)).toBe(true);
    expect(feed.data.filter((change) => change.entity === "leads").map((change) => [change.id, change.action, change.record?.["is_deleted"]])).toEqual([
      ["l1", "delete", true],
      ["l2", "upsert", false],
    ]);
    expect(feed.data.some((change) => change.id === "c1")).toBe(false);
    cursors.push(feed.next_cursor);
  });

  test("an audit's heal is in the feed like any other write, under the audit's id", async () => {
    time = T0 + 2 * 60 * 60 * 1000;
    const audit = await settle("audits");
    const feed = await read(cursors[1]!);
    expect(feed.data.map((change) => [change.entity, change.id, change.action, change.run_id])).toEqual([["contacts", "c1", "upsert", audit]]);
    expect(feed.data[0]!.record).toMatchObject({ name: "Renamed" });
    cursors.push(feed.next_cursor);
  });

  test("a reset: the next sync's writes of every lead come again", async () => {
    time = T0 + 3 * 60 * 60 * 1000;
    const run = await settle("reset", { entity: "leads", start_sync: true });
    const feed = await read(cursors[2]!);
    expect(feed.data.filter((change) => change.entity === "leads").map((change) => [change.id, change.action, change.run_id])).toEqual([
      ["l1", "delete", run],
      ["l2", "upsert", run],
    ]);
  });

  test("read one change at a time, the cursor gives the same feed as one read: a limit cuts inside a commit and resumes there", async () => {
    const whole = (await read(null)).data;
    const stepped: Change[] = [];
    let cursor: string | null = null;
    for (let step = 0; step <= whole.length; step += 1) {
      const page = await read(cursor, 1);
      stepped.push(...page.data);
      cursor = page.next_cursor;
    }
    expect(stepped).toEqual(whole);
    expect(whole.length).toBeGreaterThan(10);
  });

  test("kept 30 days: later, an old cursor is a 410 saying to re-read the records route, and nothing older is listed", async () => {
    time = T0 + 31 * DAY;
    const gone = await env.api.request("GET", `${feedPath()}?cursor=${encodeURIComponent(cursors[0]!)}`, { token: env.owner });
    expect(gone.status).toBe(410);
    expect(gone.body.error.code).toBe("gone");
    expect(gone.body.error.message).toContain("records route");
    expect((await read(null)).data).toEqual([]);
  });

  test("a cursor it did not issue is a 422 naming cursor; a limit out of range a 422 naming limit", async () => {
    const bad = await env.api.request("GET", `${feedPath()}?cursor=not-a-cursor`, { token: env.owner });
    expect(bad.status).toBe(422);
    expect(bad.body.error.field).toBe("cursor");
    for (const limit of ["0", "1001", "1.5", "x"]) {
      const response = await env.api.request("GET", `${feedPath()}?limit=${limit}`, { token: env.owner });
      expect(response.status).toBe(422);
      expect(response.body.error.field).toBe("limit");
    }
  });

  test("tenant-scoped and owner-only: another workspace gets 404, ROP and MOP 403", async () => {
    expect((await env.api.request("GET", feedPath(), { token: await env.api.token("acct-changes-other") })).status).toBe(404);
    for (const role of ["ROP", "MOP"] as const) expect((await env.api.request("GET", feedPath(), { token: await env.api.token("acct-changes", role) })).status).toBe(403);
  });
});
