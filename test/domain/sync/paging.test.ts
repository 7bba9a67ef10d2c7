import { afterAll, beforeAll, describe, test } from "vitest";
import { MAX_PAGES_PER_ENTITY, PAGE_SIZE, WATERMARK_SAFETY_MARGIN_SECONDS } from "../../../lambdas/domain/core/limits";
import type { RunSummary } from "../../../lambdas/domain/core/run-summary";
import type { StoredConnection } from "../../../lambdas/domain/core/connection";
import { leaseUntil } from "../../../lambdas/domain/sync/entity-steps";
import { newRunId } from "../../../lambdas/domain/sync/run-id";
import type { SyncCursor } from "../../../lambdas/domain/sync/sync-state";
import { callRecord, eventRecord, leadRecord, taskRecord } from "../../builders/source-records";
import { minuteStamp, smallContacts, smallCrm, smallLeads } from "../../builders/small-crm";
import { crmSource, entityOrder, type CrmData } from "../../support/crm-source";
import {
  envelope,
  type RecordedRequest,
  type SourceHandler,
  type SourceReply,
  type SourceRequest,
  type SourceServer,
} from "../../support/source-server";
import { useSourceServers } from "../../support/source-servers";
import { createSyncHarness, entityRow, type SyncHarness } from "../../support/sync-harness";

/**
 * The spec's paging and incremental rules, on the real definition, a real
 * loopback source and DynamoDB Local. Every test has its own source and
 * connection, so they run concurrently.
 */

const TOKEN = "paging-token-3e8b0c";
const PAGE_TASKS_PER_EXECUTION = 3;

let harness: SyncHarness;
/** Continues a run in a fresh execution after every 3 page tasks. */
let shortExecutions: SyncHarness;
const serve = useSourceServers("all");

beforeAll(async () => {
  [harness, shortExecutions] = await Promise.all([
    createSyncHarness({ timeScale: 0.01 }),
    createSyncHarness({ timeScale: 0.01, pageTasksPerExecution: PAGE_TASKS_PER_EXECUTION }),
  ]);
});
afterAll(async () => {
  await Promise.all([harness.close(), shortExecutions.close()]);
});


/** The spec-correct source over `data`, except the paths in `override`, answered by their own handler. */
function sourceWith(data: CrmData, override: Readonly<Record<string, (request: SourceRequest) => SourceReply>> = {}): SourceHandler {
  return crmSource(() => data, { token: TOKEN, fault: (request) => override[request.path]?.(request) });
}

async function syncAgainst(
  handler: SourceHandler,
  on: SyncHarness = harness,
): Promise<{ summary: RunSummary; server: SourceServer; connection: StoredConnection }> {
  const server = await serve(handler);
  const connection = await on.addConnection({ baseUrl: server.baseUrl, token: TOKEN });
  const summary = await on.sync(connection);
  return { summary, server, connection };
}

const to = (requests: readonly RecordedRequest[], path: string) => requests.filter((request) => request.path === path);
const pagesOf = (requests: readonly RecordedRequest[], path: string) => to(requests, path).map((request) => request.query["page"]);
const ids = (records: readonly Record<string, unknown>[]) => records.map((record) => String(record["id"])).sort();
const range = (from: number, count: number, prefix: string) => Array.from({ length: count }, (_, i) => `${prefix}${from + i}`).sort();

describe.concurrent("paging and incremental rules", () => {
  test("paging: page=1, 2, ... in order with limit=100", async ({ expect }) => {
    const data = { ...smallCrm(), contacts: smallContacts(250), leads: smallLeads(120) };
    const { summary, server } = await syncAgainst(sourceWith(data));

    expect(summary.status).toBe("succeeded");
    expect(server.requests.every((request) => request.query["limit"] === String(PAGE_SIZE))).toBe(true);
    expect(PAGE_SIZE).toBe(100);
    expect(pagesOf(server.requests, "/pipelines")).toEqual(["1"]);
    expect(pagesOf(server.requests, "/users")).toEqual(["1"]);
    expect(pagesOf(server.requests, "/contacts")).toEqual(["1", "2", "3"]);
    expect(pagesOf(server.requests, "/leads")).toEqual(["1", "2"]);
    expect(entityOrder(server.requests)).toEqual(["/pipelines", "/users", "/contacts", "/leads", "/tasks", "/calls", "/events"]);
    expect(entityRow(summary, "contacts")).toMatchObject({ status: "succeeded", pages: 3, records: 250 });
    expect(entityRow(summary, "leads")).toMatchObject({ status: "succeeded", pages: 2, records: 120 });
  });

  test("paging ends when has_more is falsy, not when data is empty", async ({ expect }) => {
    const data = smallCrm();
    const { summary, server, connection } = await syncAgainst(
      sourceWith(data, {
        // An empty page that says more follows, then the records.
        "/contacts": ({ query }) =>
          query.get("page") === "1" ? { json: envelope([], true) } : { json: envelope(smallContacts(2), false) },
        // A full page that says nothing follows ends paging although the source holds more.
        "/leads": ({ query }) => ({ json: envelope(query.get("page") === "1" ? smallLeads(100) : [], false) }),
      }),
    );

    expect(pagesOf(server.requests, "/contacts")).toEqual(["1", "2"]);
    expect(entityRow(summary, "contacts")).toMatchObject({ status: "succeeded", pages: 2, records: 2 });
    expect(ids(await harness.listAll(connection.id, "contacts"))).toEqual(["c0", "c1"]);
    expect(pagesOf(server.requests, "/leads")).toEqual(["1"]);
    expect(entityRow(summary, "leads")).toMatchObject({ status: "succeeded", pages: 1, records: 100 });
    expect(summary.status).toBe("succeeded");
  });

  test("a missing has_more ends paging", async ({ expect }) => {
    const { summary, server, connection } = await syncAgainst(
      sourceWith(smallCrm(), { "/contacts": () => ({ json: { data: smallContacts(PAGE_SIZE) } }) }),
    );

    expect(pagesOf(server.requests, "/contacts")).toEqual(["1"]);
    expect(entityRow(summary, "contacts")).toMatchObject({ status: "succeeded", pages: 1, records: 100, error: null });
    expect(await harness.listAll(connection.id, "contacts")).toHaveLength(100);
    expect(summary.status).toBe("succeeded");
  });

  test("a page whose ids equal the previous page's fails the entity with a pagination error", async ({ expect }) => {
    // The source ignores `page`: every request gets the same 100 leads and has_more true.
    const { summary, server, connection } = await syncAgainst(
      sourceWith(smallCrm(), { "/leads": () => ({ json: envelope(smallLeads(PAGE_SIZE), true) }) }),
    );

    expect(pagesOf(server.requests, "/leads")).toEqual(["1", "2"]);
    const row = entityRow(summary, "leads");
    expect(row).toMatchObject({ status: "failed", pages: 1, records: 100 });
    expect(row?.failure?.rule).toBe("paging.no-repeat-page");
    expect(row?.error).toContain("repeats");
    expect(ids(await harness.listAll(connection.id, "leads"))).toEqual(range(0, 100, "l"));
    expect(summary.status).toBe("failed");
    expect(entityRow(summary, "tasks")?.status).toBe("succeeded");
  });

  test("records must ascend by the compared timestamp across pages: a backwards step fails the entity", async ({ expect }) => {
    // Page 1 ends at minute 199; page 2 starts at minute 150.
    const { summary, server, connection } = await syncAgainst(
      sourceWith(smallCrm(), {
        "/contacts": ({ query }) =>
          query.get("page") === "1"
            ? { json: envelope(smallContacts(100, 0, (i) => 100 + i), true) }
            : { json: envelope(smallContacts(10, 100, (i) => 50 + i), false) },
      }),
    );

    expect(pagesOf(server.requests, "/contacts")).toEqual(["1", "2"]);
    const row = entityRow(summary, "contacts");
    expect(row).toMatchObject({ status: "failed", pages: 1, records: 100 });
    expect(row?.failure).toMatchObject({ rule: "incremental.ascending", record_id: "c100" });
    expect(row?.error).toContain("c100");
    expect(ids(await harness.listAll(connection.id, "contacts"))).toEqual(range(0, 100, "c"));
    expect(await harness.records.getWatermark(connection.id, "contacts")).toBe(minuteStamp(199));
    expect(summary.status).toBe("failed");
    expect(entityRow(summary, "leads")?.status).toBe("succeeded");
  });

  test("a 5001st page fails the entity", async ({ expect }) => {
    const base = Date.UTC(2026, 0, 2);
    // Has more, always: distinct ids per page and timestamps that ascend across pages.
    const endlessLeads = ({ query }: SourceRequest): SourceReply => {
      const page = Number(query.get("page"));
      const data = Array.from({ length: PAGE_SIZE }, (_, i) =>
        leadRecord({ id: `lead-${page}-${i}`, pipeline_id: null, stage_id: null, updated_at: new Date(base + (page * PAGE_SIZE + i) * 1000).toISOString() }),
      );
      return { json: envelope(data, true) };
    };
    const server = await serve(sourceWith(smallCrm(), { "/leads": endlessLeads }));
    const connection = await harness.addConnection({ baseUrl: server.baseUrl, token: TOKEN });
    const now = new Date();
    const runId = newRunId(now);
    const begun = await harness.runs.begin({ connectionId: connection.id, runId, startedAt: now.toISOString(), leaseUntil: leaseUntil(now) });
    expect(begun.started).toBe(true);
    // Pages 1..4998 already fetched (by earlier executions of this run).
    const continuation: SyncCursor = {
      entity: "leads",
      page: MAX_PAGES_PER_ENTITY - 1,
      updated_since: "2026-01-01T00:00:00+00:00",
      watermark: null,
      previous: null,
      throttle_attempts: 0,
      steps: 0,
    };
    await harness.engine.start({ business_account_id: connection.business_account_id, connection_id: connection.id, run_id: runId, continuation });
    const summary = await harness.waitForRun(connection.id, runId);

    expect(pagesOf(server.requests, "/leads")).toEqual(["4999", "5000"]);
    const row = entityRow(summary, "leads");
    expect(row).toMatchObject({ status: "failed", pages: 2, records: 200 });
    expect(row?.failure?.rule).toBe("paging.page-cap");
    expect(row?.error).toContain("5000");
    expect(entityOrder(server.requests)).toEqual(["/leads", "/tasks", "/calls", "/events"]);
    for (const entity of ["tasks", "calls", "events"]) expect(entityRow(summary, entity)?.status, entity).toBe("succeeded");
    expect(summary.status).toBe("failed");
  });

  test("a run continues in a fresh execution after PAGE_TASKS_PER_EXECUTION page tasks, with nothing lost or repeated", async ({ expect }) => {
    // 8 pages of contacts: 14 page tasks in all (1 + 1 + 8 + 1 + 1 + 1 + 1).
    const data = { ...smallCrm(), contacts: smallContacts(750) };
    const { summary, server, connection } = await syncAgainst(sourceWith(data), shortExecutions);

    expect(summary.status).toBe("succeeded");
    expect(summary.entities.every((row) => row.status === "succeeded")).toBe(true);
    expect(pagesOf(server.requests, "/contacts")).toEqual(["1", "2", "3", "4", "5", "6", "7", "8"]);
    expect(entityOrder(server.requests)).toEqual(["/pipelines", "/users", "/contacts", "/leads", "/tasks", "/calls", "/events"]);
    expect(server.requests).toHaveLength(14);
    expect(entityRow(summary, "contacts")).toMatchObject({ pages: 8, records: 750 });
    expect(ids(await shortExecutions.listAll(connection.id, "contacts"))).toEqual(range(0, 750, "c"));

    // A fresh execution after every 3 page tasks but the last: 4 continuations, 5 executions.
    const continued = shortExecutions.logger.lines.filter(
      (line) => line["message"] === "run continued in a fresh execution" && line["run_id"] === summary.id,
    );
    expect(continued).toHaveLength(Math.ceil(14 / PAGE_TASKS_PER_EXECUTION) - 1);
    expect(continued.map((line) => [line["entity"], line["page"]])).toEqual([
      ["contacts", 2],
      ["contacts", 5],
      ["contacts", 8],
      ["calls", 1],
    ]);
  });

  test("incremental: the first run starts from sync_since; the next from the watermark minus the safety margin", async ({ expect }) => {
    const data: CrmData = {
      ...smallCrm(),
      contacts: smallContacts(3, 0, (i) => 10 * (i + 1)),
      leads: smallLeads(120),
      tasks: [taskRecord({ id: "t1", lead_id: "l1", updated_at: minuteStamp(5) })],
      calls: [callRecord({ id: "k1", lead_id: "l1", updated_at: minuteStamp(6) })],
      events: [eventRecord({ id: "e1", lead_id: "l1", created_at: minuteStamp(7), updated_at: undefined })],
    };
    const server = await serve(sourceWith(data));
    const connection = await harness.addConnection({ baseUrl: server.baseUrl, token: TOKEN, syncSince: "2026-01-15T10:20:30.000Z" });

    const first = await harness.sync(connection);
    expect(first.status).toBe("succeeded");
    const run1 = [...server.requests];
    for (const path of ["/contacts", "/leads", "/tasks", "/calls", "/events"]) {
      expect(to(run1, path).length, path).toBeGreaterThan(0);
      for (const request of to(run1, path)) expect(request.query["updated_since"], path).toBe("2026-01-15T10:20:30+00:00");
    }
    expect(pagesOf(run1, "/leads")).toEqual(["1", "2"]);

    const watermarks = {
      contacts: await harness.records.getWatermark(connection.id, "contacts"),
      leads: await harness.records.getWatermark(connection.id, "leads"),
      tasks: await harness.records.getWatermark(connection.id, "tasks"),
      calls: await harness.records.getWatermark(connection.id, "calls"),
      events: await harness.records.getWatermark(connection.id, "events"),
    };
    expect(watermarks).toEqual({ contacts: minuteStamp(30), leads: minuteStamp(119), tasks: minuteStamp(5), calls: minuteStamp(6), events: minuteStamp(7) });

    server.requests.length = 0;
    const second = await harness.sync(connection);
    expect(second.status).toBe("succeeded");
    const run2 = [...server.requests];
    // leads: watermark 01:59:00 minus the 120 s margin.
    expect(WATERMARK_SAFETY_MARGIN_SECONDS).toBe(120);
    expect(to(run2, "/leads")[0]?.query["updated_since"]).toBe("2026-03-01T01:57:00+00:00");
    for (const [entity, watermark] of Object.entries(watermarks)) {
      const expected = `${new Date(Date.parse(watermark!) - WATERMARK_SAFETY_MARGIN_SECONDS * 1000).toISOString().slice(0, 19)}+00:00`;
      for (const request of to(run2, `/${entity}`)) expect(request.query["updated_since"], entity).toBe(expected);
    }
    // Only the leads at or after 01:57 come again: one page.
    expect(entityRow(second, "leads")).toMatchObject({ pages: 1, records: 3 });

    for (const request of [...to(run1, "/pipelines"), ...to(run1, "/users"), ...to(run2, "/pipelines"), ...to(run2, "/users")]) {
      expect(request.query).not.toHaveProperty("updated_since");
    }
  });
});
