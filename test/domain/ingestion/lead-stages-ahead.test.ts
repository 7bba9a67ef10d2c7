import { beforeAll, beforeEach, describe, expect, test } from "vitest";
import { randomUUID } from "node:crypto";
import { PageValidationError } from "../../../lambdas/domain/core/errors";
import type { PageWrite, RecordStore } from "../../../lambdas/domain/core/ports/record-store";
import { ingestPage } from "../../../lambdas/domain/ingestion/ingest-page";
import type { PageInput } from "../../../lambdas/domain/ingestion/fetch-and-prepare";
import { createMemoryLogger } from "../../../lambdas/adapters/local/json-logger";
import { createHttpSourceClient } from "../../../lambdas/adapters/source-http/http-source-client";
import { DynamoDbRunStore } from "../../../lambdas/adapters/dynamodb/runs/dynamodb-run-store";
import { DynamoDbRecordStore } from "../../../lambdas/adapters/dynamodb/records/dynamodb-record-store";
import { DynamoDbHistoryStore } from "../../../lambdas/adapters/dynamodb/history/dynamodb-history-store";
import { FAR_LEASE, runHoldingLock } from "../../builders/page-runs";
import { leadRecord } from "../../builders/source-records";
import { useTestTable } from "../../support/dynamodb";
import { servedPage, type SourceServer } from "../../support/source-server";
import { useSourceServers } from "../../support/source-servers";
import { rejectedWith } from "../../support/rejected-with";

/*
 * The page task reads its leads' stored stages (for their transitions) as soon
 * as the page's ids are known, while the page is validated and planned, and
 * hands them to the commit, which then reads nothing more
 * (docs/history-feed-webhooks.md, "Stage history"). Against DynamoDB Local and
 * a loopback source that moves its leads between runs.
 */

const TOKEN = "src-ahead-51c2";
const PAGE_NOW = "2026-06-01T00:00:00.000Z";
/** path -> pages served; has_more while a next page exists. */
let pages: Record<string, unknown[][]> = {};
let server: SourceServer;
const table = useTestTable();
const serve = useSourceServers("all");
let connectionId: string;
/** DynamoDB commands sent, by name, since the test began; a name listed in `failNext` fails once. */
const sent: string[] = [];
const failNext = new Set<string>();
const calls: string[] = [];
table.client.middlewareStack.add(
  (next, context) => async (args) => {
    const name = context.commandName ?? "";
    sent.push(name);
    if (failNext.delete(name)) throw Object.assign(new Error("throttled"), { name: "ProvisionedThroughputExceededException" });
    return next(args);
  },
  { step: "initialize" },
);

beforeAll(async () => {
  server = await serve((request) => servedPage(pages, request));
});
beforeEach(async () => {
  pages = {};
  connectionId = `conn-${randomUUID()}`;
  await runHoldingLock(new DynamoDbRunStore(table), connectionId, "run-ahead");
  sent.length = 0;
  calls.length = 0;
});

/** The real store, with the order of its two calls a page makes noted. */
function recordingStore(): RecordStore {
  const store = new DynamoDbRecordStore(table);
  return Object.assign(Object.create(store) as RecordStore, {
    readLeadStages: (id: string, ids: readonly string[]) => {
      calls.push("readLeadStages");
      return store.readLeadStages(id, ids);
    },
    commitPage: (write: PageWrite) => {
      calls.push(write.leadStages === undefined ? "commitPage" : "commitPage with the stages read ahead");
      return store.commitPage(write);
    },
  });
}

const input = (page: number, runId = "run-ahead"): PageInput => ({
  connectionId,
  entity: "leads",
  page,
  updatedSince: null,
  watermark: null,
  previous: null,
  run: { runId, leaseUntil: FAR_LEASE, committedAt: PAGE_NOW },
});
const ingest = (page: number) => ingestPage({ source: createHttpSourceClient(), store: recordingStore(), logger: createMemoryLogger() }, { baseUrl: server.baseUrl, token: TOKEN }, input(page));
const leads = (stage: string, updated: string) => Array.from({ length: 5 }, (_, i) => leadRecord({ id: `L${i}`, pipeline_id: "p1", stage_id: stage, updated_at: updated }));
const moves = async () => (await new DynamoDbHistoryStore(table).allTransitions(connectionId)).filter((t) => t.from_stage_id !== null).map((t) => `${t.lead_id}:${t.from_stage_id}>${t.to_stage_id}`).sort();

describe("the leads' stored stages are read ahead of the commit", () => {
  test("a leads page that is not a whole listing reads its leads' stages once, before its commit, which reads none again; the moves are recorded", async () => {
    pages["/leads"] = [[], leads("a", "2026-03-01T00:00:00Z")];
    await ingest(2);
    pages["/leads"] = [[], leads("b", "2026-03-02T00:00:00Z")];
    await ingest(2);
    expect(calls).toEqual(["readLeadStages", "commitPage with the stages read ahead", "readLeadStages", "commitPage with the stages read ahead"]);
    expect(sent.filter((name) => name === "BatchGetItemCommand")).toHaveLength(2);
    expect(await moves()).toEqual(["L0:a>b", "L1:a>b", "L2:a>b", "L3:a>b", "L4:a>b"]);
  });

  test("a whole listing (page 1 without a next page) is not read ahead, so an unchanged one reads no lead", async () => {
    pages["/leads"] = [leads("a", "2026-03-01T00:00:00Z")];
    await ingest(1);
    sent.length = 0;
    await ingest(1);
    expect(calls.filter((call) => call === "readLeadStages")).toEqual([]);
    expect(sent.filter((name) => name === "BatchGetItemCommand")).toEqual([]);
  });

  test("a read ahead that fails leaves the read to the commit: the page commits and records its moves", async () => {
    pages["/leads"] = [[], leads("a", "2026-03-01T00:00:00Z")];
    await ingest(2);
    pages["/leads"] = [[], leads("c", "2026-03-02T00:00:00Z")];
    failNext.add("BatchGetItemCommand");
    sent.length = 0;
    await ingest(2);
    expect(calls.slice(-1)).toEqual(["commitPage"]);
    expect(sent.filter((name) => name === "BatchGetItemCommand")).toHaveLength(2);
    expect(await moves()).toEqual(["L0:a>c", "L1:a>c", "L2:a>c", "L3:a>c", "L4:a>c"]);
  });

  test("a page whose ids could not be keys is not read ahead: it fails validation and reads nothing", async () => {
    pages["/leads"] = [[], [leadRecord({ id: "x".repeat(256) })]];
    await rejectedWith(ingest(2), PageValidationError);
    expect(calls).toEqual([]);
    expect(sent.filter((name) => name === "BatchGetItemCommand")).toEqual([]);
  });
});
