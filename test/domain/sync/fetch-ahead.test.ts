import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { SEGMENT_PAGE_START_SECONDS } from "../../../lambdas/domain/core/limits";
import { endUnfinishedEntities } from "../../../lambdas/domain/sync/fail-unfinished-entities";
import { startSync } from "../../../lambdas/domain/sync/start-sync";
import { nestedArraysJson } from "../../builders/hostile-records";
import { leadRecord, pipelineRecord, userRecord } from "../../builders/source-records";
import { gate } from "../../support/gate";
import { holdFirstRequest, useScriptedCrmSource } from "../../support/scripted-crm-source";
import { createSyncHarness, entityRow, type SyncHarness } from "../../support/sync-harness";

/**
 * Fetch ahead, commit in order (lambdas/domain/sync/fetch-ahead.ts): page N+1's
 * request leaves while page N is validated and committed, and every rule of a
 * page still holds. Every assertion waits on gates (a request that arrived, a
 * commit that resolved, a slot asked for), never on the clock.
 */

const TOKEN = "fetch-ahead-token-7c1e";
let harness: SyncHarness;

const stamp = (minute: number) => new Date(Date.UTC(2026, 3, 1, 0, minute)).toISOString();
const leads = (count: number) => Array.from({ length: count }, (_, i) => leadRecord({ id: `l${i}`, updated_at: stamp(i) }));
const source = useScriptedCrmSource(TOKEN, () => ({ pipelines: [pipelineRecord()], users: [userRecord()], contacts: [], leads: leads(350) }));

const leadsPages = () => source.server.requests.filter((request) => request.path === "/leads").map((request) => Number(request.query["page"]));

/** The page tasks' clock: the wall clock, moved on by a test (the engine's segment starts keep the wall clock). */
let clockAheadMs = 0;

beforeAll(async () => {
  harness = await createSyncHarness({ fetchAhead: true, clock: { now: () => new Date(Date.now() + clockAheadMs) } });
});
afterAll(async () => {
  await harness.close();
});

describe("fetch ahead, commit in order", () => {
  test("page N+1's request leaves while page N commits: leads page 2 arrives at the source before page 1's commit is let through", async () => {
    const connection = await harness.addConnection({ baseUrl: source.server.baseUrl, token: TOKEN });
    const page2Arrived = gate();
    source.fault = (request) => {
      if (request.path === "/leads" && request.query.get("page") === "2") page2Arrived.open();
      return undefined;
    };
    const commit = harness.records.commitPage;
    // Without the early request this commit would wait for ever, and the test would fail on its time-out.
    harness.records.commitPage = async (input) => {
      if (input.connectionId === connection.id && input.run.entity === "leads" && input.run.page === 1) await page2Arrived.opened;
      return commit(input);
    };
    try {
      const summary = await harness.sync(connection);
      expect(entityRow(summary, "leads")).toMatchObject({ status: "succeeded", pages: 4, records: 350 });
      // Each page asked for once, in order.
      expect(leadsPages()).toEqual([1, 2, 3, 4]);
      expect(await harness.listAll(connection.id, "leads")).toHaveLength(350);
    } finally {
      harness.records.commitPage = commit;
    }
  });

  test("an early fetch never leaves before its slot: while leads page 2's slot is held, page 1 commits and nothing of page 2 reaches the source", async () => {
    const connection = await harness.addConnection({ baseUrl: source.server.baseUrl, token: TOKEN });
    let holdNextSlot = false;
    source.fault = (request) => {
      // The next slot this connection asks for after leads page 1 arrived is page 2's, taken early.
      if (request.path === "/leads" && request.query.get("page") === "1") holdNextSlot = true;
      return undefined;
    };
    const slotAsked = gate();
    const slotGiven = gate();
    const acquire = harness.limiter.acquire;
    harness.limiter.acquire = async (connectionId, rate, options) => {
      if (connectionId === connection.id && holdNextSlot) {
        holdNextSlot = false;
        slotAsked.open();
        await slotGiven.opened;
      }
      return acquire.call(harness.limiter, connectionId, rate, options);
    };
    try {
      const page1 = harness.pageCommitted("leads", 1);
      const { runId } = await startSync(harness.startDeps, connection);
      await Promise.all([slotAsked.opened, page1]);
      expect(leadsPages()).toEqual([1]);
      slotGiven.open();
      expect((await harness.waitForRun(connection.id, runId)).status).toBe("succeeded");
      expect(leadsPages()).toEqual([1, 2, 3, 4]);
    } finally {
      harness.limiter.acquire = acquire;
    }
  });

  test("a failed page N commits nothing of N+1: leads page 2 breaks a rule, page 1 stays, page 3 is asked for at most once and never written", async () => {
    const broken = leads(350);
    broken[150] = leadRecord({ id: "l150", updated_at: stamp(150), price: "not a number" });
    source.data = { ...source.data, leads: broken };
    const connection = await harness.addConnection({ baseUrl: source.server.baseUrl, token: TOKEN });
    const summary = await harness.sync(connection);

    expect(entityRow(summary, "leads")).toMatchObject({ status: "failed", pages: 1, records: 100 });
    expect((await harness.listAll(connection.id, "leads")).map((lead) => lead["id"]).sort()).toEqual(leads(100).map((lead) => lead["id"]).sort());
    expect(await harness.records.getWatermark(connection.id, "leads")).toBe(stamp(99));
    // At most one request of waste: page 3, asked for while page 2 was validated.
    expect(leadsPages().filter((page) => page === 3).length).toBeLessThanOrEqual(1);
    expect(leadsPages()).not.toContain(4);
  });

  test("a cancel between the early fetch and its commit writes nothing more: page 2 fetched ahead is never committed", async () => {
    const connection = await harness.addConnection({ baseUrl: source.server.baseUrl, token: TOKEN });
    const held = holdFirstRequest(source, "/leads", 2);
    const page1 = harness.pageCommitted("leads", 1);
    const { runId } = await startSync(harness.startDeps, connection);
    await Promise.all([held.arrived, page1]);
    const watermark = await harness.records.getWatermark(connection.id, "leads");
    // The owner's cancel as cancelRun makes it, with the segment left running (an Express execution cannot be stopped).
    await endUnfinishedEntities(harness.runs, await harness.runs.get(connection.id, runId), { status: "cancelled" });
    await harness.runs.finish(connection.id, runId, { status: "cancelled", finishedAt: new Date().toISOString() });
    held.release();

    expect((await harness.waitForRun(connection.id, runId)).status).toBe("cancelled");
    expect(await harness.listAll(connection.id, "leads")).toHaveLength(100);
    expect(await harness.records.getWatermark(connection.id, "leads")).toBe(watermark);
    // Page 2 was the request of waste; page 3's early request is stopped before it leaves or is the only one more.
    expect(leadsPages().filter((page) => page > 2).length).toBeLessThanOrEqual(1);
    expect(source.server.requests.filter((request) => ["/tasks", "/calls", "/events"].includes(request.path))).toEqual([]);
  });
});

describe("no early request past the segment's last start", () => {
  test(`once a segment has run SEGMENT_PAGE_START_SECONDS (${SEGMENT_PAGE_START_SECONDS} s) no early request leaves: the next page goes to the next segment and is asked for once, by its own task`, async () => {
    const connection = await harness.addConnection({ baseUrl: source.server.baseUrl, token: TOKEN });
    source.fault = (request) => {
      // While leads page 1 is asked for, its task's clock passes the segment's last start (and every later segment starts past it).
      if (request.path === "/leads" && request.query.get("page") === "1") clockAheadMs = SEGMENT_PAGE_START_SECONDS * 1000;
      return undefined;
    };
    try {
      const summary = await harness.sync(connection);
      expect(entityRow(summary, "leads")).toMatchObject({ status: "succeeded", pages: 4, records: 350 });
      // Fetched ahead and dropped at the segment's end, page 2 would be asked for twice, and so would 3 and 4.
      expect(leadsPages()).toEqual([1, 2, 3, 4]);
      expect(await harness.listAll(connection.id, "leads")).toHaveLength(350);
    } finally {
      clockAheadMs = 0;
    }
  });
});

describe("the ladder with the fetch ahead: an early request's answer is its page's first try", () => {
  test("5xx on an early request: 6 tries of leads page 2 after 1, 2, 4, 8, 16 s, then the entity fails with page 1 kept", async () => {
    source.fault = (request) =>
      request.path === "/leads" && request.query.get("page") === "2" ? { status: 503, json: { error: "maintenance" } } : undefined;
    const connection = await harness.addConnection({ baseUrl: source.server.baseUrl, token: TOKEN });
    const summary = await harness.sync(connection);

    expect(entityRow(summary, "leads")).toMatchObject({ status: "failed", pages: 1, records: 100 });
    expect(leadsPages()).toEqual([1, 2, 2, 2, 2, 2, 2]);
    expect(harness.waitsOf(summary.id)).toEqual([1, 2, 4, 8, 16]);
    expect(await harness.listAll(connection.id, "leads")).toHaveLength(100);
  });

  test("429 on an early request: its Retry-After is waited before page 2 is asked for again, once", async () => {
    let throttled = false;
    source.fault = (request) => {
      if (request.path !== "/leads" || request.query.get("page") !== "2" || throttled) return undefined;
      throttled = true;
      return { status: 429, headers: { "retry-after": "3" }, json: { error: "slow down" } };
    };
    const connection = await harness.addConnection({ baseUrl: source.server.baseUrl, token: TOKEN });
    const summary = await harness.sync(connection);

    expect(entityRow(summary, "leads")).toMatchObject({ status: "succeeded", pages: 4, records: 350 });
    expect(leadsPages()).toEqual([1, 2, 2, 3, 4]);
    expect(harness.waitsOf(summary.id)).toEqual([3]);
  });

  test("401 on an early request stops everything: no second request with that token, page 1 kept, no entity after leads asked for", async () => {
    source.fault = (request) =>
      request.path === "/leads" && request.query.get("page") === "2" ? { status: 401, json: { error: "token revoked" } } : undefined;
    const connection = await harness.addConnection({ baseUrl: source.server.baseUrl, token: TOKEN });
    const summary = await harness.sync(connection);

    expect(summary.status).toBe("failed");
    expect(entityRow(summary, "leads")).toMatchObject({ status: "failed", records: 100 });
    expect(leadsPages()).toEqual([1, 2]);
    expect(source.server.requests.filter((request) => ["/tasks", "/calls", "/events"].includes(request.path))).toEqual([]);
  });
});

describe("what the state cannot carry", () => {
  test("a page over the state's budget is not handed on: its own task asks for it again (one request of waste) and it commits whole", async () => {
    // About 300 KB of JSON on page 2 alone: more than a Step Functions state may hold.
    const big = leads(350).map((lead, i) => (i >= 100 && i < 200 ? { ...lead, custom_fields: { notes: "x".repeat(3_000) } } : lead));
    source.data = { ...source.data, leads: big };
    const connection = await harness.addConnection({ baseUrl: source.server.baseUrl, token: TOKEN });
    const summary = await harness.sync(connection);

    expect(entityRow(summary, "leads")).toMatchObject({ status: "succeeded", pages: 4, records: 350 });
    expect(leadsPages()).toEqual([1, 2, 2, 3, 4]);
    expect(harness.logger.lines.some((line) => line["message"] === "the page fetched ahead is not handed on; its task requests it again" && line["reason"] === "over-budget")).toBe(true);
  });

  test("a record nested too deep to hand on is asked for again by its own task and fails its entity with record.depth, page 1 kept", async () => {
    // As the source sends it: JSON text 100,000 levels deep inside leads page 2 (no JSON.stringify of ours could write it).
    const page2 = leads(200).slice(100).map((lead) => JSON.stringify(lead));
    page2[20] = `{"id":"l120","updated_at":"${stamp(120)}","custom_fields":{"x":${nestedArraysJson(100_000)}}}`;
    source.fault = (request) =>
      request.path === "/leads" && request.query.get("page") === "2"
        ? { body: `{"data":[${page2.join(",")}],"has_more":true}`, headers: { "content-type": "application/json" } }
        : undefined;
    const connection = await harness.addConnection({ baseUrl: source.server.baseUrl, token: TOKEN });
    const summary = await harness.sync(connection);

    const row = entityRow(summary, "leads");
    expect(row).toMatchObject({ status: "failed", records: 100 });
    expect(row?.failure?.rule).toBe("record.depth");
    expect(await harness.listAll(connection.id, "leads")).toHaveLength(100);
  });
});
