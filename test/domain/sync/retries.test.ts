import { describe, expect, test } from "vitest";
import { SUMMARY_ENTITIES } from "../../../lambdas/domain/core/entities";
import type { RunSummary } from "../../../lambdas/domain/core/run-summary";
import type { StoredConnection } from "../../../lambdas/domain/core/connection";
import { PRICE_RULE } from "../../../lambdas/domain/records/fields/price";
import { callRecord, leadRecord } from "../../builders/source-records";
import { minuteStamp, smallCrm } from "../../builders/small-crm";
import { crmSource, entityOrder, type CrmData } from "../../support/crm-source";
import type { RecordedRequest, SourceHandler, SourceReply, SourceRequest, SourceServer } from "../../support/source-server";
import { useSourceServers } from "../../support/source-servers";
import { useSyncHarness, entityRow } from "../../support/sync-harness";
import { failFirst, failInTurn } from "../../support/source-faults";

/**
 * The status codes the service reacts to, and the other ways an entity fails,
 * on the real definition, a real loopback source and DynamoDB Local.
 *
 * The waits are not measured: the engine reports every wait the state machine
 * asks for (Retry backoff and Wait states, in the definition's seconds) and
 * the tests assert that sequence exactly (harness().waitsOf). TIME_SCALE 0.01
 * only keeps the real pauses short; no assertion depends on it, so every test
 * has its own source and connection and they all run at once.
 */

const TOKEN = "retries-token-5d2f9a";

const harness = useSyncHarness({ timeScale: 0.01 });
const serve = useSourceServers("all");



interface SyncResult {
  readonly summary: RunSummary;
  readonly server: SourceServer;
  readonly connection: StoredConnection;
}

/** One run against a fresh loopback source and a fresh connection. */
async function syncAgainst(handler: SourceHandler, options: { token?: string } = {}): Promise<SyncResult> {
  const server = await serve(handler);
  const connection = await harness().addConnection({ baseUrl: server.baseUrl, token: options.token ?? TOKEN });
  const summary = await harness().sync(connection);
  return { summary, server, connection };
}

/** The spec-correct source over `data`, with `fault` answering first when it returns a reply. */
function faulty(data: CrmData, fault: (request: SourceRequest) => SourceReply | undefined): SourceHandler {
  return crmSource(() => data, { token: TOKEN, fault });
}

/** Every wait the run summary recorded, over all entities, as [entity, kind, page, attempt, seconds, retry_after]. */
function recordedWaits(summary: RunSummary) {
  return summary.entities.flatMap((row) =>
    row.waits.map((wait) => [row.entity, wait.kind, wait.page, wait.attempt, wait.seconds, wait.retry_after_seconds] as const),
  );
}

const to = (server: SourceServer, path: string): RecordedRequest[] => server.requests.filter((request) => request.path === path);

function statuses(summary: RunSummary): Record<string, string> {
  return Object.fromEntries(summary.entities.map((row) => [row.entity, row.status]));
}

describe.concurrent("the retry ladder: the waits the state machine asks for", () => {
  test("5xx: retried up to 5 times after 1, 2, 4, 8, 16 s, then the entity fails", async ({ expect }) => {
    const { summary, server } = await syncAgainst(
      faulty(smallCrm(), failFirst("/contacts", Infinity, { status: 503, json: { error: "maintenance window in progress" } })),
    );

    const contacts = to(server, "/contacts");
    expect(contacts).toHaveLength(6);
    expect(contacts.every((request) => request.query["page"] === "1")).toBe(true);
    // Exactly one wait before each retry, in this order; no other wait in the run.
    expect(harness().waitsOf(summary.id)).toEqual([1, 2, 4, 8, 16]);
    // The run summary shows each of them (the console's live view reads it), with the source's answer.
    expect(recordedWaits(summary)).toEqual([1, 2, 4, 8, 16].map((seconds, i) => ["contacts", "retry", 1, i + 1, seconds, null]));
    expect(entityRow(summary, "contacts")?.waits[0]?.detail).toContain("maintenance window in progress");

    const row = entityRow(summary, "contacts");
    expect(row?.status).toBe("failed");
    expect(row?.failure?.rule).toBe("source.server-errors-recover");
    expect(row?.error).toBe("the source kept failing (HTTP 503), through 5 retries: maintenance window in progress");
    expect(summary.status).toBe("failed");
    // A failed entity never stops the ones after it.
    expect(entityOrder(server.requests)).toEqual(["/pipelines", "/users", "/contacts", "/leads", "/tasks", "/calls", "/events"]);
    for (const entity of ["pipelines", "stages", "users", "leads", "tasks", "calls", "events"]) {
      expect(entityRow(summary, entity)?.status, entity).toBe("succeeded");
    }
  });
});

describe.concurrent("the run summary records every wait the state machine makes, as it makes it", () => {
  test("a 5xx, then a 429, then a 5xx on the same page: the retry count starts again after the 429's wait, as SyncPage's Retry does", async ({ expect }) => {
    const busy: SourceReply = { status: 503, json: { error: "busy" } };
    const { summary } = await syncAgainst(
      faulty(smallCrm(), failInTurn("/leads", [busy, busy, { status: 429, headers: { "retry-after": "7" }, json: { error: "slow down" } }, busy])),
    );
    expect(harness().waitsOf(summary.id)).toEqual([1, 2, 7, 1]);
    expect(recordedWaits(summary)).toEqual([
      ["leads", "retry", 1, 1, 1, null],
      ["leads", "retry", 1, 2, 2, null],
      ["leads", "throttled", 1, 1, 7, 7],
      ["leads", "retry", 1, 1, 1, null],
    ]);
    expect(entityRow(summary, "leads")).toMatchObject({ status: "succeeded", records: 2 });
  });
});

// Each test has its own source and connection: they all run at once.
describe.concurrent("statuses and failures", () => {
  test("429: waits the larger of Retry-After and the backoff step (Retry-After wins)", async ({ expect }) => {
    const { summary, server } = await syncAgainst(
      faulty(smallCrm(), failFirst("/users", 1, { status: 429, headers: { "retry-after": "5" }, json: { error: "slow down" } })),
    );

    const users = to(server, "/users");
    expect(users).toHaveLength(2);
    // Retry-After 5 s against backoff step 1 (1 s): the wait is 5 s.
    expect(harness().waitsOf(summary.id)).toEqual([5]);
    expect(recordedWaits(summary)).toEqual([["users", "throttled", 1, 1, 5, 5]]);
    expect(entityRow(summary, "users")).toMatchObject({ status: "succeeded", records: 2 });
    expect(summary.status).toBe("succeeded");
  });

  test("429: waits the larger of Retry-After and the backoff step (backoff wins)", async ({ expect }) => {
    const { summary, server } = await syncAgainst(
      faulty(smallCrm(), failFirst("/users", 4, { status: 429, headers: { "retry-after": "1" }, json: { error: "slow down" } })),
    );

    const users = to(server, "/users");
    expect(users).toHaveLength(5);
    // Retry-After stays 1 s; the waits follow the backoff: 1, 2, 4, 8 s.
    expect(harness().waitsOf(summary.id)).toEqual([1, 2, 4, 8]);
    expect(entityRow(summary, "users")).toMatchObject({ status: "succeeded", records: 2 });
    expect(summary.status).toBe("succeeded");
  });

  test("429: waits the larger of Retry-After and the backoff step, step by step", async ({ expect }) => {
    const { summary, server } = await syncAgainst(
      faulty(smallCrm(), failFirst("/users", 3, { status: 429, headers: { "retry-after": "3" }, json: { error: "slow down" } })),
    );

    expect(to(server, "/users")).toHaveLength(4);
    // max(3, 1), max(3, 2), max(3, 4).
    expect(harness().waitsOf(summary.id)).toEqual([3, 3, 4]);
    expect(recordedWaits(summary)).toEqual([
      ["users", "throttled", 1, 1, 3, 3],
      ["users", "throttled", 1, 2, 3, 3],
      ["users", "throttled", 1, 3, 4, 3],
    ]);
    expect(entityRow(summary, "users")).toMatchObject({ status: "succeeded", records: 2 });
  });

  test("5xx: a page that succeeds on a retry is ingested once", async ({ expect }) => {
    const { summary, server, connection } = await syncAgainst(faulty(smallCrm(), failFirst("/leads", 2, { status: 503, json: { error: "busy" } })));

    expect(to(server, "/leads")).toHaveLength(3);
    expect(harness().waitsOf(summary.id)).toEqual([1, 2]);
    expect(summary.status).toBe("succeeded");
    expect(entityRow(summary, "leads")).toMatchObject({ status: "succeeded", pages: 1, records: 2, error: null });
    const leads = await harness().listAll(connection.id, "leads");
    expect(leads.map((lead) => lead["id"]).sort()).toEqual(["l1", "l2"]);
  });

  test("request timeout: retried like a 5xx", async ({ expect }) => {
    // The harness's client gives a request 2 s (in real time: TIME_SCALE never scales it).
    const { summary, server } = await syncAgainst(faulty(smallCrm(), failFirst("/pipelines", 1, { hang: true })));

    const pipelines = to(server, "/pipelines");
    expect(pipelines).toHaveLength(2);
    // Retried as a transient error: after the first backoff step, as a 5xx would be.
    expect(harness().waitsOf(summary.id)).toEqual([1]);
    expect(entityRow(summary, "pipelines")).toMatchObject({ status: "succeeded", pages: 1, records: 1 });
    expect(summary.status).toBe("succeeded");
  });

  test("a broken connection: retried like a 5xx", async ({ expect }) => {
    const { summary, server, connection } = await syncAgainst(faulty(smallCrm(), failFirst("/users", 2, { destroy: true })));

    expect(to(server, "/users")).toHaveLength(3);
    expect(entityRow(summary, "users")).toMatchObject({ status: "succeeded", pages: 1, records: 2 });
    expect(summary.status).toBe("succeeded");
    expect(await harness().listAll(connection.id, "users")).toHaveLength(2);
  });

  test("a broken connection on every try: the entity fails after 5 retries", async ({ expect }) => {
    const { summary, server } = await syncAgainst(faulty(smallCrm(), failFirst("/calls", Infinity, { destroy: true })));

    expect(to(server, "/calls")).toHaveLength(6);
    expect(harness().waitsOf(summary.id)).toEqual([1, 2, 4, 8, 16]);
    const row = entityRow(summary, "calls");
    expect(row?.status).toBe("failed");
    // Connected, then broken off: the source is reached (not down), so the entities after it are still tried.
    expect(row?.failure?.rule).toBe("source.server-errors-recover");
    expect(row?.error).toMatch(/^the source kept failing, through 5 retries: connection (reset|closed before the response was complete)$/);
    // calls is optional: the run still succeeds, and events still ran.
    expect(summary.status).toBe("succeeded");
    expect(entityRow(summary, "events")?.status).toBe("succeeded");
  });

  test("429: up to 5 retries, then the entity fails", async ({ expect }) => {
    const { summary, server } = await syncAgainst(faulty(smallCrm(), failFirst("/users", Infinity, { status: 429 })));

    expect(to(server, "/users")).toHaveLength(6);
    // No Retry-After: the backoff steps alone.
    expect(harness().waitsOf(summary.id)).toEqual([1, 2, 4, 8, 16]);
    // Five waits recorded, none for the sixth 429 (no wait follows it: the entity fails).
    expect(recordedWaits(summary).map(([, kind, , attempt, seconds]) => [kind, attempt, seconds])).toEqual(
      [1, 2, 4, 8, 16].map((seconds, i) => ["throttled", i + 1, seconds]),
    );
    const row = entityRow(summary, "users");
    expect(row?.status).toBe("failed");
    expect(row?.failure?.rule).toBe("rate.retries-exhausted");
    expect(row?.error).toMatch(/^the source still answered 429 after 5 retries/);
    expect(summary.status).toBe("failed");
    expect(entityRow(summary, "contacts")?.status).toBe("succeeded");
  });

  test("401: the run stops after exactly one request and every entity fails with the auth error", async ({ expect }) => {
    const { summary, server } = await syncAgainst(crmSource(smallCrm, { token: TOKEN }), { token: `${TOKEN}x` });

    expect(server.requests).toHaveLength(1);
    expect(summary.status).toBe("failed");
    expect(summary.entities.map((row) => row.entity)).toEqual([...SUMMARY_ENTITIES]);
    expect(summary.entities.every((row) => row.status === "failed")).toBe(true);
    const errors = [...new Set(summary.entities.map((row) => row.error))];
    expect(errors).toEqual(["the source refused the token (401): invalid token"]);
    expect([...new Set(summary.entities.map((row) => row.failure?.rule))]).toEqual(["auth.token-accepted"]);
  });

  test("401 mid-run: no further request; entities already finished keep their outcome", async ({ expect }) => {
    const { summary, server } = await syncAgainst(
      faulty(smallCrm(), failFirst("/contacts", Infinity, { status: 401, json: { error: "token revoked" } })),
    );

    expect(to(server, "/contacts")).toHaveLength(1);
    expect(server.requests.at(-1)?.path).toBe("/contacts");
    expect(entityOrder(server.requests)).toEqual(["/pipelines", "/users", "/contacts"]);
    expect(statuses(summary)).toEqual({
      pipelines: "succeeded",
      stages: "succeeded",
      users: "succeeded",
      contacts: "failed",
      leads: "failed",
      tasks: "failed",
      calls: "failed",
      events: "failed",
    });
    for (const entity of ["pipelines", "stages", "users"]) expect(entityRow(summary, entity)?.error, entity).toBeNull();
    for (const entity of ["contacts", "leads", "tasks", "calls", "events"]) {
      expect(entityRow(summary, entity)?.error, entity).toBe("the source refused the token (401): token revoked");
    }
    expect(summary.status).toBe("failed");
  });

  test("404 on an optional endpoint: success with 0 records", async ({ expect }) => {
    const { tasks: _tasks, calls: _calls, events: _events, ...required } = smallCrm();
    const { summary, server } = await syncAgainst(crmSource(() => required, { token: TOKEN }));

    for (const path of ["/tasks", "/calls", "/events"]) expect(to(server, path), path).toHaveLength(1);
    for (const entity of ["tasks", "calls", "events"]) {
      expect(entityRow(summary, entity), entity).toMatchObject({ status: "succeeded", records: 0, error: null });
    }
    expect(summary.status).toBe("succeeded");
  });

  test("404 on a required endpoint fails its entity; /pipelines fails pipelines and stages", async ({ expect }) => {
    const { pipelines: _pipelines, ...rest } = smallCrm();
    const { summary, server } = await syncAgainst(crmSource(() => rest, { token: TOKEN }));

    expect(to(server, "/pipelines")).toHaveLength(1);
    for (const entity of ["pipelines", "stages"]) {
      expect(entityRow(summary, entity), entity).toMatchObject({
        status: "failed",
        error: "the source answered 404: this required endpoint is not implemented: not implemented",
        failure: { rule: "endpoint.required-present", record_id: null, field: null },
      });
    }
    for (const entity of ["users", "contacts", "leads", "tasks", "calls", "events"]) {
      expect(entityRow(summary, entity)?.status, entity).toBe("succeeded");
    }
    expect(summary.status).toBe("failed");
  });

  test.for([400, 422])("other 4xx: no retry, the entity fails (%i)", async (status, { expect }) => {
    const { summary, server } = await syncAgainst(
      faulty(smallCrm(), failFirst("/leads", Infinity, { status, json: { error: `rejected with ${status}` } })),
    );

    expect(to(server, "/leads")).toHaveLength(1);
    expect(entityRow(summary, "leads")).toMatchObject({
      status: "failed",
      error: `the source refused the request (HTTP ${status}): rejected with ${status}`,
      failure: { rule: "source.status-200" },
    });
    expect(summary.status).toBe("failed");
    expect(entityRow(summary, "tasks")?.status).toBe("succeeded");
  });

  test("a body that is not JSON: no retry, the entity fails", async ({ expect }) => {
    const { summary, server } = await syncAgainst(
      faulty(smallCrm(), failFirst("/users", Infinity, { headers: { "content-type": "text/html" }, body: "<html>oops</html>" })),
    );

    expect(to(server, "/users")).toHaveLength(1);
    const row = entityRow(summary, "users");
    expect(row?.status).toBe("failed");
    expect(row?.failure?.rule).toBe("envelope.json");
    expect(row?.error).toContain("not JSON");
    expect(summary.status).toBe("failed");
    expect(entityRow(summary, "contacts")?.status).toBe("succeeded");
  });

  test("validation error: no retry, the entity fails, and the error names the record, field and rule", async ({ expect }) => {
    const data = smallCrm();
    data.leads = Array.from({ length: 150 }, (_, i) =>
      leadRecord({ id: `lead-${i}`, pipeline_id: "p1", stage_id: "open", updated_at: minuteStamp(i), ...(i === 120 ? { price: "abc" } : {}) }),
    );
    const { summary, server, connection } = await syncAgainst(crmSource(() => data, { token: TOKEN }));

    expect(to(server, "/leads").map((request) => request.query["page"])).toEqual(["1", "2"]);
    const row = entityRow(summary, "leads");
    expect(row).toMatchObject({ status: "failed", pages: 1, records: 100 });
    expect(row?.error).toBe(`record lead-120, field price, rule lead.price-numeric: ${PRICE_RULE}`);
    expect(row?.failure).toMatchObject({ rule: "lead.price-numeric", record_id: "lead-120", field: "price" });
    // Page 1 is committed and kept, with its watermark; page 2 wrote nothing.
    const stored = (await harness().listAll(connection.id, "leads")).map((lead) => String(lead["id"]));
    expect(stored.sort()).toEqual(Array.from({ length: 100 }, (_, i) => `lead-${i}`).sort());
    expect(await harness().records.getWatermark(connection.id, "leads")).toBe(minuteStamp(99));
    expect(summary.status).toBe("failed");
    expect(entityRow(summary, "tasks")?.status).toBe("succeeded");
  });

  test("a failed optional entity does not fail the run", async ({ expect }) => {
    const data = smallCrm();
    data.calls = [callRecord({ id: "k1", lead_id: undefined, contact_id: undefined, updated_at: minuteStamp(1) })];
    const { summary, server } = await syncAgainst(crmSource(() => data, { token: TOKEN }));

    expect(to(server, "/calls")).toHaveLength(1);
    const row = entityRow(summary, "calls");
    expect(row?.status).toBe("failed");
    expect(row?.error).toContain("k1");
    expect(row?.error).toContain("lead_id");
    expect(entityRow(summary, "events")).toMatchObject({ status: "succeeded", records: 1 });
    expect(to(server, "/events")).toHaveLength(1);
    expect(summary.status).toBe("succeeded");
  });
});
