import { beforeAll, beforeEach, describe, expect, test } from "vitest";
import { randomUUID } from "node:crypto";
import type { SyncEntity } from "../../../lambdas/domain/core/entities";
import { PageValidationError, PaginationError } from "../../../lambdas/domain/core/errors";
import { MAX_PAGES_PER_ENTITY } from "../../../lambdas/domain/core/limits";
import { ingestPage } from "../../../lambdas/domain/ingestion/ingest-page";
import type { PageInput } from "../../../lambdas/domain/ingestion/fetch-and-prepare";
import { createMemoryLogger } from "../../../lambdas/adapters/local/json-logger";
import { createHttpSourceClient } from "../../../lambdas/adapters/source-http/http-source-client";
import { DynamoDbRunStore } from "../../../lambdas/adapters/dynamodb/runs/dynamodb-run-store";
import { DynamoDbRecordStore } from "../../../lambdas/adapters/dynamodb/records/dynamodb-record-store";
import { FAR_LEASE, runHoldingLock } from "../../builders/page-runs";
import { leadRecord, pipelineRecord, stageRecord, taskRecord, userRecord } from "../../builders/source-records";
import { useTestTable } from "../../support/dynamodb";
import { servedPage, type SourceServer } from "../../support/source-server";
import { useSourceServers } from "../../support/source-servers";

const TOKEN = "src-token-7f3a9c1e";
/** path -> page number -> records served; has_more is true while a next page exists. */
let pages: Record<string, unknown[][]> = {};
let server: SourceServer;
const table = useTestTable();
const serve = useSourceServers("all");
const store = new DynamoDbRecordStore(table);
const runs = new DynamoDbRunStore(table);
const logger = createMemoryLogger();
const source = createHttpSourceClient();
let connectionId: string;

const RUN_ID = "run-ingest";
/** The page task's clock when each page commits: after every record's timestamp here, as a live CRM's clock is. */
const PAGE_NOW = "2026-06-01T00:00:00.000Z";

beforeAll(async () => {
  server = await serve((request) => {
    // Like a careless source, echo the credential it rejected.
    if (request.headers.authorization !== `Bearer ${TOKEN}`) return { status: 401, json: { error: `bad token: ${request.headers.authorization}` } };
    return servedPage(pages, request);
  });
});
beforeEach(async () => {
  pages = {};
  connectionId = `conn-${randomUUID()}`;
  server.requests.length = 0;
  await runHoldingLock(runs, connectionId, RUN_ID);
});

const deps = () => ({ source, store, logger });
const connection = () => ({ baseUrl: server.baseUrl, token: TOKEN });
function input(entity: SyncEntity, overrides: Partial<PageInput> = {}): PageInput {
  return {
    connectionId,
    entity,
    page: 1,
    updatedSince: null,
    watermark: null,
    previous: null,
    run: { runId: RUN_ID, leaseUntil: FAR_LEASE, committedAt: PAGE_NOW },
    ...overrides,
  };
}
async function records(collection: Parameters<DynamoDbRecordStore["listRecords"]>[1]) {
  return (await store.listRecords(connectionId, collection, { limit: 1000 })).records;
}

describe("page writes with the watermark", () => {
  test("each page is written with its watermark: the largest committed updated_at", async () => {
    // b is 11:00Z: the page ascends a, b, c.
    pages["/leads"] = [
      [
        leadRecord({ id: "a", updated_at: "2026-03-01T10:00:00Z" }),
        leadRecord({ id: "b", updated_at: "2026-03-01T12:00:00+01:00" }),
        leadRecord({ id: "c", updated_at: "2026-03-01T11:30:00Z" }),
      ],
    ];
    const result = await ingestPage(deps(), connection(), input("leads"));
    expect(result).toMatchObject({ records: 3, hasMore: false, watermark: "2026-03-01T11:30:00.000Z" });
    expect(await store.getWatermark(connectionId, "leads")).toBe("2026-03-01T11:30:00.000Z");
    expect((await records("leads")).map((lead) => lead["id"]).sort()).toEqual(["a", "b", "c"]);
  });

  test("a record whose timestamp is null is stored but never moves the watermark", async () => {
    pages["/leads"] = [[leadRecord({ id: "n", updated_at: "2026-02-30T00:00:00Z" })]];
    const result = await ingestPage(deps(), connection(), input("leads", { watermark: null }));
    expect(result.watermark).toBeNull();
    expect(await store.getWatermark(connectionId, "leads")).toBeNull();
    expect(await records("leads")).toEqual([expect.objectContaining({ id: "n", updated_at: null })]);
  });

  test("the watermark never moves backwards: a page re-sent from the safety margin leaves it", async () => {
    pages["/contacts"] = [[{ id: "c1", updated_at: "2026-03-01T00:00:00Z" }]];
    await ingestPage(deps(), connection(), input("contacts"));
    pages["/contacts"] = [[{ id: "c0", updated_at: "2026-02-28T23:59:00Z" }]];
    const result = await ingestPage(deps(), connection(), input("contacts", { watermark: "2026-03-01T00:00:00.000Z" }));
    expect(result.watermark).toBe("2026-03-01T00:00:00.000Z");
    expect(await store.getWatermark(connectionId, "contacts")).toBe("2026-03-01T00:00:00.000Z");
  });

  test("/pipelines and /users move no watermark (full list every sync)", async () => {
    pages["/users"] = [[userRecord({ id: "u1", updated_at: "2026-03-01T00:00:00Z" })]];
    const result = await ingestPage(deps(), connection(), input("users"));
    expect(result.watermark).toBeNull();
    expect(await store.getWatermark(connectionId, "users")).toBeNull();
  });

  test("a page is all or nothing: one bad record writes nothing and leaves the watermark", async () => {
    pages["/leads"] = [[leadRecord({ id: "good", updated_at: "2026-01-01T00:00:00Z" })]];
    await ingestPage(deps(), connection(), input("leads"));
    pages["/leads"] = [
      [
        leadRecord({ id: "good", name: "renamed", updated_at: "2026-01-02T00:00:00Z" }),
        leadRecord({ id: "new", updated_at: "2026-01-03T00:00:00Z" }),
        leadRecord({ id: "broken", price: { amount: 5 }, updated_at: "2026-01-04T00:00:00Z" }),
      ],
    ];
    const failure = ingestPage(deps(), connection(), input("leads", { watermark: "2026-01-01T00:00:00.000Z" }));
    await expect(failure).rejects.toBeInstanceOf(PageValidationError);
    await expect(failure).rejects.toMatchObject({ recordId: "broken", field: "price" });
    const stored = await records("leads");
    expect(stored.map((lead) => lead["id"])).toEqual(["good"]);
    expect(stored[0]?.["name"]).not.toBe("renamed");
    expect(await store.getWatermark(connectionId, "leads")).toBe("2026-01-01T00:00:00.000Z");
  });

  test("upsert by (connection, id): a replayed page leaves one record per id", async () => {
    pages["/tasks"] = [[taskRecord({ id: "t1", updated_at: "2026-01-01T00:00:00Z" })]];
    await ingestPage(deps(), connection(), input("tasks"));
    await ingestPage(deps(), connection(), input("tasks"));
    expect((await records("tasks")).map((task) => task["id"])).toEqual(["t1"]);
  });

  test("nothing is deleted by a sync: a record absent from later pages stays", async () => {
    pages["/tasks"] = [[taskRecord({ id: "t1", updated_at: "2026-01-01T00:00:00Z" })]];
    await ingestPage(deps(), connection(), input("tasks"));
    pages["/tasks"] = [[taskRecord({ id: "t2", updated_at: "2026-01-02T00:00:00Z" })]];
    await ingestPage(deps(), connection(), input("tasks"));
    expect((await records("tasks")).map((task) => task["id"]).sort()).toEqual(["t1", "t2"]);
  });

  test("lead tombstones soft-delete: the lead stays, flagged is_deleted", async () => {
    pages["/leads"] = [[leadRecord({ id: "l1", is_deleted: true, updated_at: "2026-01-01T00:00:00Z" })]];
    await ingestPage(deps(), connection(), input("leads"));
    expect(await records("leads")).toEqual([expect.objectContaining({ id: "l1", is_deleted: true })]);
  });

  test("task text is never cut: a 1 MB text is written whole", async () => {
    const text = "x".repeat(512 * 1024) + "😀".repeat(128 * 1024);
    pages["/tasks"] = [[taskRecord({ id: "big", text, updated_at: "2026-01-01T00:00:00Z" })]];
    await ingestPage(deps(), connection(), input("tasks"));
    const [task] = await records("tasks");
    expect(task?.["text"]).toBe(text);
  });
});

describe("won/lost against the synced stages", () => {
  test("won/lost comes from the kind of the stage synced by /pipelines; unresolved leads are counted", async () => {
    pages["/pipelines"] = [
      [
        pipelineRecord({
          id: "p1",
          stages: [stageRecord({ id: "s-open", kind: "open" }), stageRecord({ id: "s-won", kind: "WON" })],
        }),
      ],
    ];
    await ingestPage(deps(), connection(), input("pipelines"));
    pages["/leads"] = [
      [
        leadRecord({ id: "won", pipeline_id: "p1", stage_id: "s-won", updated_at: "2026-01-01T00:00:00Z" }),
        leadRecord({ id: "open", pipeline_id: "p1", stage_id: "s-open", updated_at: "2026-01-01T00:00:01Z" }),
        leadRecord({ id: "lost?", pipeline_id: "p9", stage_id: "s-won", updated_at: "2026-01-01T00:00:02Z" }),
      ],
    ];
    const result = await ingestPage(deps(), connection(), input("leads"));
    expect(result.unresolvedWonLost).toBe(1);
    const byId = Object.fromEntries((await records("leads")).map((lead) => [lead["id"], lead]));
    expect(byId["won"]).toMatchObject({ is_won: true, is_lost: false });
    expect(byId["open"]).toMatchObject({ is_won: false, is_lost: false });
    expect(byId["lost?"]).toMatchObject({ is_won: false, is_lost: false });
    expect(logger.lines.some((line) => line["level"] === "warn" && line["count"] === 1)).toBe(true);
  });
});

describe("findings in the run summary", () => {
  const summaryRow = async (entity: string) => (await runs.get(connectionId, RUN_ID))!.entities.find((row) => row.entity === entity)!;
  const unlinked = (id: string, at: string) => taskRecord({ id, lead_id: null, contact_id: null, updated_at: at });

  test("findings count each record once, exactly, across a retried page and a page replayed after it committed", async () => {
    pages["/users"] = [[userRecord({ id: "user-1" })]];
    await ingestPage(deps(), connection(), input("users"));
    pages["/tasks"] = [
      [
        unlinked("t1", "2026-01-01T00:00:01Z"),
        taskRecord({ id: "t2", updated_at: "not a time" }),
        taskRecord({ id: "t3", responsible_user_id: "user-gone", updated_at: "2026-01-01T00:00:02Z" }),
        taskRecord({ id: "t4", updated_at: "2026-01-01T00:00:03Z" }),
      ],
      ["t5", "t6", "t7", "t8", "t9", "t10"].map((id, i) => unlinked(id, `2026-01-02T00:00:0${i}Z`)),
    ];
    const first = await ingestPage(deps(), connection(), input("tasks"));
    // The state machine retries the task (the answer was lost after the commit) and a later segment replays it: both refused at the count.
    await ingestPage(deps(), connection(), input("tasks"));
    await ingestPage(deps(), connection(), input("tasks"));
    const second = await ingestPage(deps(), connection(), input("tasks", { page: 2, previous: first.fingerprint, findingSamples: first.findingSamples }));
    await ingestPage(deps(), connection(), input("tasks", { page: 2, previous: first.fingerprint, findingSamples: first.findingSamples }));

    const row = await summaryRow("tasks");
    expect(row).toMatchObject({ pages: 2, records: 10 });
    expect(row.findings).toEqual([
      { rule: "record.updated-at", severity: "error", count: 1, sample_ids: ["t2"], detail: expect.stringMatching(/^record t2: updated_at is "not a time"/) },
      { rule: "reference.user", severity: "warning", count: 1, sample_ids: ["t3"], detail: expect.stringMatching(/^record t3: responsible_user_id user-gone/) },
      { rule: "task.unlinked", severity: "warning", count: 7, sample_ids: ["t1", "t5", "t6", "t7", "t8"], detail: expect.stringMatching(/^record t1: /) },
    ]);
    expect(second.findingSamples).toEqual({ "task.unlinked": 5, "record.updated-at": 1, "reference.user": 1 });
    expect((await summaryRow("users")).findings).toEqual([]);
  });
});

describe("the watermark never passes the present", () => {
  const summaryRow = async (entity: string) => (await runs.get(connectionId, RUN_ID))!.entities.find((row) => row.entity === entity)!;

  test("record.updated-at-future: exactly the page's clock plus the allowance moves the watermark; one second past it is stored as sent, counted by id, and moves nothing", async () => {
    pages["/contacts"] = [
      [
        { id: "at-bound", updated_at: "2026-06-01T00:10:00Z" },
        { id: "one-second-past", updated_at: "2026-06-01T00:10:01Z" },
        { id: "placeholder", updated_at: "9999-12-31T23:59:59Z" },
      ],
    ];
    const result = await ingestPage(deps(), connection(), input("contacts"));
    expect(result.watermark).toBe("2026-06-01T00:10:00.000Z");
    expect(await store.getWatermark(connectionId, "contacts")).toBe("2026-06-01T00:10:00.000Z");
    expect((await records("contacts")).map((doc) => [doc["id"], doc["updated_at"]]).sort()).toEqual([
      ["at-bound", "2026-06-01T00:10:00.000Z"],
      ["one-second-past", "2026-06-01T00:10:01.000Z"],
      ["placeholder", "9999-12-31T23:59:59.000Z"],
    ]);
    expect((await summaryRow("contacts")).findings).toEqual([
      { rule: "record.updated-at-future", severity: "warning", count: 2, sample_ids: ["one-second-past", "placeholder"], detail: expect.stringMatching(/^record one-second-past: updated_at is "2026-06-01T00:10:01Z"/) },
    ]);
  });

  test("a page of nothing but future timestamps leaves the watermark where it was", async () => {
    pages["/leads"] = [[leadRecord({ id: "placeholder", updated_at: "9999-12-31T23:59:59Z" })]];
    const result = await ingestPage(deps(), connection(), input("leads", { watermark: "2026-05-01T00:00:00.000Z" }));
    expect(result.watermark).toBe("2026-05-01T00:00:00.000Z");
    expect(await store.getWatermark(connectionId, "leads")).toBeNull();
  });
});

describe("requests", () => {
  test("updated_since is sent percent-encoded to incremental endpoints and never to /pipelines or /users", async () => {
    pages["/contacts"] = [[]];
    pages["/users"] = [[]];
    await ingestPage(deps(), connection(), input("contacts", { updatedSince: "2026-03-01T10:00:00.000+05:00", page: 3 }));
    await ingestPage(deps(), connection(), input("users", { updatedSince: "2026-03-01T10:00:00.000Z" }));
    const [contacts, users] = server.requests;
    expect(contacts?.query).toEqual({ limit: "100", page: "3", updated_since: "2026-03-01T10:00:00.000+05:00" });
    expect(contacts?.url).toContain("updated_since=2026-03-01T10%3A00%3A00.000%2B05%3A00");
    expect(users?.query).toEqual({ limit: "100", page: "1" });
  });

  test("paging ends when has_more is falsy, not when data is empty", async () => {
    pages["/contacts"] = [[], [{ id: "late", updated_at: "2026-01-01T00:00:00Z" }]];
    const first = await ingestPage(deps(), connection(), input("contacts"));
    expect(first).toMatchObject({ records: 0, hasMore: true });
    const second = await ingestPage(deps(), connection(), input("contacts", { page: 2, previous: first.fingerprint }));
    expect(second).toMatchObject({ records: 1, hasMore: false });
  });

  test(`a ${MAX_PAGES_PER_ENTITY + 1}st page fails the entity with a pagination error and makes no request`, async () => {
    pages["/leads"] = [[]];
    await expect(ingestPage(deps(), connection(), input("leads", { page: MAX_PAGES_PER_ENTITY + 1 }))).rejects.toBeInstanceOf(
      PaginationError,
    );
    expect(server.requests).toHaveLength(0);
  });

  test("the source token never appears in a log line or an error detail", async () => {
    pages["/leads"] = [[leadRecord({ id: "fine", updated_at: "2026-01-01T00:00:00Z" })]];
    await ingestPage(deps(), connection(), input("leads"));
    const revoked = "revoked-token-5d2b";
    const failure = await ingestPage(deps(), { ...connection(), token: revoked }, input("leads")).catch((error: unknown) => error);
    expect(failure).toMatchObject({ name: "SourceAuthError" });
    expect((failure as Error).message).toContain("[redacted]");
    expect((failure as Error).message).not.toContain(revoked);
    expect(JSON.stringify(logger.lines)).not.toContain(TOKEN);
  });
});
