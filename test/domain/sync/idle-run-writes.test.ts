import { randomUUID } from "node:crypto";
import { QueryCommand, type AttributeValue } from "@aws-sdk/client-dynamodb";
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "vitest";
import { DEFAULT_SIZES } from "../../../bin/reference-source/dataset";
import { startReferenceSource, type ReferenceSource } from "../../../bin/reference-source/start-reference-source";
import {
  DECRYPTS_PER_IDLE_RUN,
  FULL_PAGE_RRU,
  LEAD_HEAD_RRU,
  FULL_PAGE_WRU,
  IDLE_PAGE_COMMIT_WRU,
  IDLE_RUN_OTHER_RRU,
  IDLE_RUN_OTHER_WRU,
  IDLE_RUN_RRU,
  PAGE_RRU,
  RATE_SLOT_WRU,
  STAGE_KINDS_RRU,
  USER_IDS_RRU,
} from "../../../bin/cost/cost-model";
import { cachingDecrypts } from "../../../lambdas/adapters/aws/cached-token-cipher";
import type { RecordWrite } from "../../../lambdas/domain/core/ports/record-store";
import type { StoredConnection } from "../../../lambdas/domain/core/connection";
import type { TokenCipher } from "../../../lambdas/domain/core/ports/token-cipher";
import { ATTR, recordShardPartitionKeys, recordShards } from "../../../lambdas/adapters/dynamodb/records/keys";
import { COLLECTIONS } from "../../../lambdas/domain/core/entities";
import { runHoldingLock } from "../../builders/page-runs";
import { testDynamoDbClient } from "../../support/dynamodb";
import { createSyncHarness, type SyncHarness } from "../../support/sync-harness";
import { RECORD_TABLE } from "../../../lambdas/adapters/dynamodb/table/table-definition";
import { countWriteUnits, describedIndexes, itemSizeBytes, type WriteUnit, type WriteUnitCounter } from "../../support/write-units";
import { withoutLineage } from "../../support/planned-items";
import { countReadUnits, type ReadUnit, type ReadUnitCounter } from "../../support/read-units";

/**
 * What an idle run writes, measured on the real sync (DynamoDB Local, the
 * local Step Functions engine, the reference source on loopback) and counted
 * as DynamoDB bills it (test/support/write-units.ts). The full lists are the
 * reference source's defaults (3 pipelines with their stages, 30 users); the
 * incremental entities are small: an idle run reads one page of each either way.
 */
const SIZES = { pipelines: DEFAULT_SIZES.pipelines, users: DEFAULT_SIZES.users, contacts: 5, leads: 5, tasks: 5, calls: 5, events: 5 };

let harness: SyncHarness;
let source: ReferenceSource;
let counter: WriteUnitCounter;
let readCounter: ReadUnitCounter;
let decrypts = 0;
let connection: StoredConnection;
const reader = testDynamoDbClient();

const countingDecrypts = (cipher: TokenCipher): TokenCipher => ({
  encrypt: (plaintext, context) => cipher.encrypt(plaintext, context),
  decrypt: (ciphertext, context) => {
    decrypts += 1;
    return cipher.decrypt(ciphertext, context);
  },
});

beforeAll(async () => {
  // The page tasks decrypt as the AWS composition does: KMS behind the per-process cache.
  // The run's own reads and writes only: the figures a run's end keeps (funnel, managers) are counted apart (docs/cost.md).
  harness = await createSyncHarness({ wrapCipher: (cipher) => cachingDecrypts(countingDecrypts(cipher)) });
  source = await startReferenceSource({ seed: 14, sizes: SIZES, now: new Date("2026-03-01T00:00:00Z") });
  counter = countWriteUnits(harness.client, reader, await describedIndexes(reader, harness.tableName));
  readCounter = countReadUnits(harness.client, reader);
  connection = await harness.addConnection({ baseUrl: source.url, token: source.token, syncSince: "2025-01-01T00:00:00Z" });
  const first = await harness.sync(connection);
  expect(first.status).toBe("succeeded");
  // The first run read the incremental entities from sync_since; from the second on they are re-read from their
  // watermarks (minus the safety margin), the same updated_since every idle run: the steady state measured here.
  const settling = await harness.sync(connection);
  expect(settling.status).toBe("succeeded");
});
afterAll(async () => {
  await source.close();
  await harness.close();
  reader.destroy();
});
beforeEach(() => {
  counter.reset();
  readCounter.reset();
  source.requests.length = 0;
});

const keyPrefix = (write: WriteUnit) => write.pk.split("#")[0];
/** A page's commit: the transactions that fence on (or extend) the run lock. */
const isPageCommit = (writes: readonly WriteUnit[]) =>
  writes.some((write) => write.command === "TransactWriteItemsCommand" && keyPrefix(write) === "RUNLOCK" && write.action !== "Put" && write.action !== "Delete");

function byCommand(writes: readonly WriteUnit[]): WriteUnit[][] {
  const commands = new Map<number, WriteUnit[]>();
  for (const write of writes) commands.set(write.seq, [...(commands.get(write.seq) ?? []), write]);
  return [...commands.values()];
}

async function idleRun() {
  const run = await measuredRun();
  // Idle: one page of every entity, as the cost model assumes.
  expect(source.requests.map((request) => `${request.path} ${request.query["page"]}`)).toEqual(
    ["/pipelines", "/users", "/contacts", "/leads", "/tasks", "/calls", "/events"].map((path) => `${path} 1`),
  );
  return run;
}

async function measuredRun() {
  const summary = await harness.sync(connection);
  expect(summary.status).toBe("succeeded");
  const commands = byCommand(counter.writes);
  const commits = commands.filter(isPageCommit);
  const limiter = commands.filter((writes) => writes.every((write) => keyPrefix(write) === "RATE"));
  const other = commands.filter((writes) => !commits.includes(writes) && !limiter.includes(writes));
  const wru = (list: WriteUnit[][]) => list.flat().reduce((sum, write) => sum + write.wru, 0);
  return { commands, commits, limiter, other, wru };
}

describe("an idle run, measured", () => {
  test("an idle run writes what bin/cost/cost-model.ts counts: IDLE_PAGE_COMMIT_WRU per page commit, RATE_SLOT_WRU per slot, IDLE_RUN_OTHER_WRU for the run's own items", async () => {
    const run = await idleRun();
    const report = {
      commits: run.commits.map((writes) => writes.map((write) => `${write.action} ${keyPrefix(write)} ${write.wru}`).join(", ")),
      other: run.other.map((writes) => `${writes[0]!.command}: ${writes.map((write) => `${write.action} ${keyPrefix(write)} ${write.wru}`).join(", ")}`),
      limiterPuts: run.limiter.length,
      // DynamoDB Local's own ConsumedCapacity (TOTAL), per command, beside this count: it does not bill transactions as AWS does.
      reportedByDynamoDbLocal: run.commands.map((writes) => `${writes[0]!.command} ${run.wru([writes])} counted, ${counter.reported.bySeq.get(writes[0]!.seq)} reported`),
    };
    console.log(JSON.stringify(report, null, 2));
    expect(run.commits.map((writes) => run.wru([writes]))).toEqual(Array(7).fill(IDLE_PAGE_COMMIT_WRU));
    expect(run.wru(run.other)).toBe(IDLE_RUN_OTHER_WRU);
    // One slot per request at least: a slot whose write came back late is re-stamped (a timing matter, so at least).
    expect(run.limiter.length).toBeGreaterThanOrEqual(7);
    expect(run.limiter.flat().every((write) => write.wru === RATE_SLOT_WRU)).toBe(true);
  });

  test("unchanged full lists are not rewritten: an idle run writes no record items (pipelines, stages, users, nor the incremental entities' re-read margin)", async () => {
    const run = await idleRun();
    expect(run.commands.flat().filter((write) => keyPrefix(write) === "REC" || keyPrefix(write) === "PART")).toEqual([]);
  });

  test("an empty page whose watermark does not move writes only its entity's data_as_of on the watermark item: one Update of 2 WRU per page", async () => {
    const run = await idleRun();
    const watermarkWrites = run.commands.flat().filter((write) => keyPrefix(write) === "WM");
    expect(watermarkWrites.map((write) => `${write.action} ${write.wru}`)).toEqual(Array(7).fill("Update 2"));
  });

  test(`an idle run decrypts the token at most ${DECRYPTS_PER_IDLE_RUN} time in a warm process (the page tasks share the cache)`, async () => {
    decrypts = 0;
    await idleRun();
    expect(decrypts).toBeLessThanOrEqual(DECRYPTS_PER_IDLE_RUN);
  });

  test("a record the source changed is always written (a renamed user, pipeline and stage), and the run after it is idle again", async () => {
    const user = source.dataset.users[0]!;
    source.dataset.users[0] = { ...user, name: `${user.name} (renamed)` };
    const pipeline = source.dataset.pipelines[0]!;
    const stage = pipeline.stages[0]!;
    source.dataset.pipelines[0] = { ...pipeline, name: `${pipeline.name} (renamed)`, stages: [{ ...stage, name: `${stage.name} (renamed)` }, ...pipeline.stages.slice(1)] };

    const changed = await measuredRun();
    const written = changed.commands.flat().filter((write) => keyPrefix(write) === "REC").map((write) => write.sk);
    expect(written).toEqual(expect.arrayContaining([user.id, pipeline.id]));
    const users = await harness.listAll(connection.id, "users");
    expect(users.find((stored) => stored["id"] === user.id)?.["name"]).toBe(`${user.name} (renamed)`);
    const pipelines = await harness.listAll(connection.id, "pipelines");
    expect(pipelines.find((stored) => stored["id"] === pipeline.id)?.["name"]).toBe(`${pipeline.name} (renamed)`);
    const stages = await harness.listAll(connection.id, "stages");
    expect(stages.find((stored) => stored["id"] === stage.id && stored["pipeline_id"] === pipeline.id)?.["name"]).toBe(`${stage.name} (renamed)`);

    counter.reset();
    source.requests.length = 0;
    const again = await idleRun();
    expect(again.commands.flat().filter((write) => keyPrefix(write) === "REC")).toEqual([]);
  });
});

/** What a run reads, by what it reads for: the pages' connection reads and the rest, named by the partition read. */
function readsOf(reads: readonly ReadUnit[]) {
  const rru = (filter: (read: ReadUnit) => boolean) => reads.filter(filter).reduce((sum, read) => sum + read.rru, 0);
  const prefix = (read: ReadUnit) => read.pk.split("#")[0];
  const pageConnection = (read: ReadUnit) => prefix(read) === "CONNECTION" && !read.consistent;
  return {
    pages: reads.filter(pageConnection).length,
    pageRru: rru(pageConnection),
    otherRru: rru((read) => !pageConnection(read)),
    other: Object.entries(
      reads.filter((read) => !pageConnection(read)).reduce<Record<string, number>>((by, read) => {
        const what = `${read.command} ${prefix(read)} ${read.consistent ? "strong" : "eventual"}`;
        return { ...by, [what]: (by[what] ?? 0) + read.rru };
      }, {}),
    ),
  };
}

describe("an idle run's reads, measured", () => {
  test("an idle run reads what bin/cost/cost-model.ts counts: PAGE_RRU per page (its connection) and IDLE_RUN_OTHER_RRU for the run (connection, listings, watermarks, stage shards, run summary)", async () => {
    await idleRun();
    const reads = readsOf(readCounter.reads);
    console.log(
      JSON.stringify(
        {
          ...reads,
          counted: readCounter.total(),
          // DynamoDB Local's own ConsumedCapacity (TOTAL), beside this count: it reports 0 for a Query that finds nothing.
          reportedByDynamoDbLocal: readCounter.reported.total,
          emptyQueries: readCounter.reads.filter((read) => read.command === "QueryCommand" && read.items === 0).map((read) => `${read.rru} counted, ${readCounter.reported.bySeq.get(read.seq)} reported`).length,
        },
        null,
        2,
      ),
    );
    expect(reads.pages).toBe(7);
    expect(reads.pageRru).toBe(7 * PAGE_RRU);
    expect(reads.otherRru).toBe(IDLE_RUN_OTHER_RRU);
    expect(readCounter.total()).toBe(IDLE_RUN_RRU);
  });

  test(`the user ids for reference.user are read once per run, one strong Query of the users record shard: USER_IDS_RRU`, async () => {
    await idleRun();
    const userQueries = readCounter.reads.filter((read) => read.command === "QueryCommand" && read.pk.includes("#users#"));
    expect(userQueries.map((read) => read.pk)).toEqual([`REC#${connection.id}#users#00`]);
    expect(userQueries.reduce((sum, read) => sum + read.rru, 0)).toBe(USER_IDS_RRU);
  });

  test(`small collections are one shard: stage kinds are read once per run, one strong Query of the ${recordShards("stages")} record shard of /stages: STAGE_KINDS_RRU`, async () => {
    await idleRun();
    const stageQueries = readCounter.reads.filter((read) => read.command === "QueryCommand" && read.pk.includes("#stages#"));
    expect(recordShards("stages")).toBe(1);
    expect(stageQueries.map((read) => read.pk)).toEqual([`REC#${connection.id}#stages#00`]);
    expect(stageQueries.reduce((sum, read) => sum + read.rru, 0)).toBe(STAGE_KINDS_RRU);
  });
});

describe("a full page, measured", () => {
  test("a full page of 100 records commits FULL_PAGE_WRU less its rate-limit slot: 100 transactional puts, the lock check, lease, progress and watermark", async () => {
    const connectionId = `conn-full-page-${randomUUID()}`;
    const run = await runHoldingLock(harness.runs, connectionId);
    const leads: RecordWrite[] = Array.from({ length: 100 }, (_, i) => ({
      collection: "leads",
      key: [`lead-${i}`],
      doc: { id: `lead-${i}`, name: `Lead ${i}`, price: 1200, pipeline_id: "pipeline-1", stage_id: "1001", updated_at: "2026-02-01T00:00:00.000Z" },
    }));
    counter.reset();
    // Page 2: a page in the middle of a busy entity (page 1 would also weigh its listing).
    run.page({ connectionId, records: [] });
    await harness.records.commitPage(run.page({ connectionId, records: leads, watermark: { entity: "leads", value: "2026-02-01T00:00:00.000Z" } }));
    console.log(`a full page: ${counter.total()} WRU counted; DynamoDB Local reported ${[...counter.reported.bySeq.values()].join(" + ")}`);
    expect(counter.total()).toBe(FULL_PAGE_WRU - RATE_SLOT_WRU);
    // Its commit reads each lead's stored head (its stage, for the history), 1 RRU each: with the page task's connection, FULL_PAGE_RRU.
    expect(readCounter.reads.map((read) => [read.command, read.rru])).toEqual(leads.map(() => ["BatchGetItemCommand", LEAD_HEAD_RRU]));
    expect(FULL_PAGE_RRU).toBe(PAGE_RRU + leads.length * LEAD_HEAD_RRU);
  });

  // "Global secondary indexes in DynamoDB": an index write is billed at its entry's size; a table write that changes
  // neither the index's key nor a projected attribute writes nothing to it.
  test("the newest-first index projects its keys only (GSI write cost): a 3 KB record's entry is 1 WRU, and rewriting the record with the same updated_at writes nothing to the index", async () => {
    const connectionId = `conn-index-${randomUUID()}`;
    const run = await runHoldingLock(harness.runs, connectionId);
    const lead = (name: string): RecordWrite => ({
      collection: "leads",
      key: ["lead-big"],
      doc: { id: "lead-big", name, price: 1200, pipeline_id: "pipeline-1", stage_id: "1001", updated_at: "2026-02-01T00:00:00.000Z" },
    });
    const indexWrites = () => counter.writes.filter((write) => write.index !== undefined);
    counter.reset();
    await harness.records.commitPage(run.page({ connectionId, records: [lead("x".repeat(3_000))] }));
    expect(indexWrites().map((write) => [write.index, write.wru])).toEqual([[RECORD_TABLE.newestIndex.name, 1]]);
    counter.reset();
    await harness.records.commitPage(run.page({ connectionId, records: [lead("y".repeat(3_000))] }));
    // The head was written again (over 3 KB with its lineage, transactional); its index entry did not move.
    const head = counter.writes.filter((write) => write.pk.startsWith("REC#") && write.index === undefined);
    expect(head).toHaveLength(1);
    expect(head[0]!.wru).toBeGreaterThanOrEqual(2 * 3);
    expect(indexWrites()).toEqual([]);
  });

  test("lineage does not push a typical record past the 1 KB write unit: the median head of each collection the reference source fills, lineage included, is at most 1 KB", async () => {
    const medians: Record<string, { heads: number; medianBytes: number; lineageBytes: number }> = {};
    for (const collection of COLLECTIONS) {
      const heads: Record<string, AttributeValue>[] = [];
      for (const pk of recordShardPartitionKeys(connection.id, collection)) {
        const out = await reader.send(new QueryCommand({ TableName: harness.tableName, KeyConditionExpression: "pk = :pk", ExpressionAttributeValues: { ":pk": { S: pk } } }));
        heads.push(...(out.Items ?? []));
      }
      if (heads.length === 0) continue;
      // Measured with lineage on every head: the sync wrote each of them.
      expect(heads.every((head) => head[ATTR.lastWritten] !== undefined)).toBe(true);
      const sizes = heads.map(itemSizeBytes).sort((a, b) => a - b);
      const lineage = heads.map((head) => itemSizeBytes(head) - itemSizeBytes(withoutLineage(head))).sort((a, b) => a - b);
      medians[collection] = { heads: heads.length, medianBytes: sizes[Math.floor(sizes.length / 2)]!, lineageBytes: lineage[Math.floor(lineage.length / 2)]! };
    }
    console.log(`record heads of the reference source, lineage included: ${JSON.stringify(medians)}`);
    expect(Object.keys(medians).length).toBeGreaterThanOrEqual(8);
    for (const { medianBytes } of Object.values(medians)) expect(medianBytes).toBeLessThanOrEqual(1024);
  });

  test("a busy run reads FULL_PAGE_RRU per extra full page on top of an idle run's IDLE_RUN_RRU", async () => {
    // 200 new leads at the source: the next run reads /leads in 3 pages (100, 100 and the re-read margin), not 1.
    const lead = source.dataset.leads[0]!;
    const latest = source.dataset.leads.map((each) => each.updated_at).sort().at(-1)!;
    source.dataset.leads.push(...Array.from({ length: 200 }, (_, i) => ({ ...lead, id: `lead-bulk-${i}`, updated_at: latest })));
    await measuredRun();
    const pages = source.requests.length;
    const reads = readsOf(readCounter.reads);
    console.log(`a busy run: ${pages} pages, ${readCounter.total()} RRU counted (${JSON.stringify(reads)}); DynamoDB Local reported ${readCounter.reported.total}`);
    expect(pages).toBeGreaterThan(7);
    expect(reads.pages).toBe(pages);
    // Each lead the run writes has its stored head read once (its stage), 1 RRU; the rest is PAGE_RRU per extra page.
    const heads = readCounter.reads.filter((read) => read.command === "BatchGetItemCommand" && read.pk.startsWith("REC#"));
    expect(heads.length).toBeGreaterThanOrEqual(200);
    expect(heads.every((read) => read.rru === LEAD_HEAD_RRU)).toBe(true);
    expect((readCounter.total() - IDLE_RUN_RRU - heads.length * LEAD_HEAD_RRU) / (pages - 7)).toBe(PAGE_RRU);
  });
});
