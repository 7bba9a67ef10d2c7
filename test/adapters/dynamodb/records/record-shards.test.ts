import { randomUUID } from "node:crypto";
import { GetItemCommand, PutItemCommand, paginateScan, type AttributeValue } from "@aws-sdk/client-dynamodb";
import { describe, expect, test } from "vitest";
import { COLLECTIONS } from "../../../../lambdas/domain/core/entities";
import { InvalidCursorError } from "../../../../lambdas/domain/core/errors";
import type { PageWrite, RecordOrder, RecordWrite } from "../../../../lambdas/domain/core/ports/record-store";
import { DynamoDbRunStore } from "../../../../lambdas/adapters/dynamodb/runs/dynamodb-run-store";
import { DynamoDbRecordStore } from "../../../../lambdas/adapters/dynamodb/records/dynamodb-record-store";
import * as keys from "../../../../lambdas/adapters/dynamodb/records/keys";
import { planPageTransactions } from "../../../../lambdas/adapters/dynamodb/records/page-transactions";
import { fencedPages, pageRun } from "../../../builders/page-runs";
import { testDynamoDbClient, useTestTable } from "../../../support/dynamodb";
import { withoutLineage, writtenItem } from "../../../support/planned-items";

/**
 * Write sharding of record heads (docs/hot-keys.md): a page's heads spread over
 * RECORD_SHARDS partition keys, and listing merges the shards back into the
 * one order a single partition had.
 */

const table = useTestTable();
const store = new DynamoDbRecordStore(table);

/** DynamoDB's documented ceiling of one partition, in write units per second. */
const PARTITION_WCU_PER_SECOND = 1_000;
/** A transactional write of an item up to 1 KB costs 2 WCU (prepare + commit). */
const TRANSACTIONAL_WCU_PER_KB = 2;
/** Issue 14: one connection at 100 pages per second. */
const PAGES_PER_SECOND = 100;
/** Record heads one partition key may take in one second of 1 KB records: 1,000 / 2 = 500. */
const HEADS_PER_PARTITION_PER_SECOND_BOUND = PARTITION_WCU_PER_SECOND / TRANSACTIONAL_WCU_PER_KB;

const range = (n: number) => Array.from({ length: n }, (_, i) => i);
const newConnection = () => `conn-${randomUUID()}`;
const lead = (id: string, extra: Record<string, unknown> = {}): RecordWrite => ({
  collection: "leads",
  key: [id],
  doc: { id, name: `Lead ${id}`, ...extra },
});

/** Each write becomes the next page of its connection's run holding the lock. */
const fenced = fencedPages(() => new DynamoDbRunStore(table));

/** Every record item of a connection (heads and parts), straight from the table. */
async function recordItems(connectionId: string): Promise<Record<string, AttributeValue>[]> {
  const items: Record<string, AttributeValue>[] = [];
  const scan = {
    TableName: table.tableName,
    FilterExpression: "begins_with(pk, :rec) OR begins_with(pk, :part)",
    ExpressionAttributeValues: { ":rec": { S: `REC#${connectionId}#` }, ":part": { S: `PART#${connectionId}#` } },
    ConsistentRead: true,
  };
  for await (const page of paginateScan({ client: table.client }, scan)) items.push(...(page.Items ?? []));
  return items.sort((a, b) => `${a["pk"]?.S} ${a["sk"]?.S}`.localeCompare(`${b["pk"]?.S} ${b["sk"]?.S}`));
}

/** DynamoDB compares strings by their UTF-8 bytes (not JavaScript's UTF-16 order). */
const byUtf8 = (a: string, b: string) => Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8"));

/** Pages through listRecords with `limit`, calling `between` after each page (to write more records in between). */
async function listPaged(connectionId: string, limit: number, order: RecordOrder, between: (ids: readonly string[], page: number) => Promise<void> = async () => {}) {
  const pages: string[][] = [];
  let cursor: string | null = null;
  do {
    const page = await store.listRecords(connectionId, "leads", { limit, cursor, order });
    pages.push(page.records.map((doc) => String(doc["id"])));
    cursor = page.nextCursor;
    if (cursor !== null) await between(pages.at(-1)!, pages.length);
  } while (cursor !== null);
  return pages;
}

describe("write sharding of record heads (docs/hot-keys.md)", () => {
  test("a page of 100 records spreads over many record partition keys, each the shard of its record's key", async () => {
    const connectionId = newConnection();
    await store.commitPage(await fenced({ connectionId, records: range(100).map((i) => lead(String(1_000_000 + i))) }));

    const heads = (await recordItems(connectionId)).filter((item) => item["pk"]?.S?.startsWith("REC#"));
    expect(heads).toHaveLength(100);
    const partitionKeys = new Set(heads.map((item) => item["pk"]?.S));
    // 100 keys hashed into 64 shards fill about 51 of them; half of the shards is the floor this test holds.
    expect(partitionKeys.size).toBeGreaterThanOrEqual(keys.RECORD_SHARDS / 2);
    for (const head of heads) {
      expect(head["pk"]?.S).toBe(keys.recordPartitionKey(connectionId, "leads", head["sk"]!.S!));
    }
  });

  test("one second at 100 pages per second puts no record partition key (table or newest index) over a partition's 1,000 WCU/s", () => {
    const connectionId = "conn-hot";
    const writesPerKey = new Map<string, number>();
    for (const page of range(PAGES_PER_SECOND)) {
      const records = range(100).map((i) => lead(String(40_000_000 + page * 100 + i), { updated_at: "2026-01-01T00:00:00Z" }));
      const plan = planPageTransactions("t", { connectionId, records, run: pageRun({ page: page + 1 }) });
      for (const input of plan) {
        for (const action of input.TransactItems ?? []) {
          const pk = writtenItem(action)?.["pk"]?.S;
          // The newest index is keyed by the same pk, so this count is the index's too.
          if (pk?.startsWith("REC#")) writesPerKey.set(pk, (writesPerKey.get(pk) ?? 0) + 1);
        }
      }
    }
    const counts = [...writesPerKey.values()];
    expect(counts.reduce((sum, n) => sum + n, 0)).toBe(PAGES_PER_SECOND * 100);
    expect(writesPerKey.size).toBe(keys.RECORD_SHARDS);
    expect(Math.max(...counts)).toBeLessThanOrEqual(HEADS_PER_PARTITION_PER_SECOND_BOUND);
  });

  test("the shard of a record depends on its key alone: an upsert lands on the same item", () => {
    for (const id of ["1", "lead-42", "é", "\u{1F600}"]) {
      const shard = keys.recordShard("leads", id);
      expect(shard).toBe(keys.recordShard("leads", id));
      expect(shard).toBeGreaterThanOrEqual(0);
      expect(shard).toBeLessThan(keys.RECORD_SHARDS);
      expect(keys.recordPartitionKey("c", "leads", id)).toBe(keys.recordShardPartitionKeys("c", "leads")[shard]);
    }
    expect(new Set(keys.recordShardPartitionKeys("c", "leads")).size).toBe(keys.RECORD_SHARDS);
  });

  test("each collection's shard count is named once: the ones that can be large are 64 shards, the small full lists (pipelines, stages, users) one, in the same key form", () => {
    const large = ["contacts", "leads", "tasks", "calls", "events", "loss_reasons"] as const;
    const small = ["pipelines", "stages", "users"] as const;
    expect(Object.keys(keys.RECORD_SHARDS_BY_COLLECTION).sort()).toEqual([...COLLECTIONS].sort());
    for (const collection of large) expect(keys.recordShards(collection), collection).toBe(keys.RECORD_SHARDS);
    for (const collection of small) expect(keys.recordShards(collection), collection).toBe(1);
    for (const collection of COLLECTIONS) {
      const partitionKeys = keys.recordShardPartitionKeys("c", collection);
      expect(partitionKeys).toEqual(range(keys.recordShards(collection)).map((shard) => `REC#c#${collection}#${String(shard).padStart(2, "0")}`));
      expect(() => keys.recordShardPartitionKey("c", collection, keys.recordShards(collection))).toThrow(RangeError);
    }
    expect(keys.recordPartitionKey("c", "stages", JSON.stringify(["p1", "s1"]))).toBe("REC#c#stages#00");
  });

  test("listing by key across shards is one sorted list (UTF-8 byte order), across page boundaries, with records added between pages", async () => {
    const connectionId = newConnection();
    // Ids whose UTF-8 order differs from JavaScript's UTF-16 order (U+FFFD vs an emoji), plus plain ones.
    const special = ["a\uFFFD", "a\u{1F600}", "é", "Z", "z", "10", "9"];
    const initial = [...special, ...range(150).map((i) => `lead-${(i * 7919) % 1000}`)];
    await store.commitPage(await fenced({ connectionId, records: initial.map((id) => lead(id)) }));
    expect(initial.map((id) => keys.recordShard("leads", id)).some((shard) => shard !== keys.recordShard("leads", initial[0]!))).toBe(true);

    const present = new Set(initial);
    const snapshots = [[...present]];
    const pages = await listPaged(connectionId, 13, "key", async (ids, page) => {
      // After each page: one record right after its last (must show up next) and one before it (must not).
      const added = [`${ids.at(-1)}-after-${page}`, `!before-${page}`];
      await store.commitPage(await fenced({ connectionId, records: added.map((id) => lead(id)) }));
      for (const id of added) present.add(id);
      snapshots.push([...present]);
    });
    // Page n is exactly the first 13, in UTF-8 order, of the records present when it was read that sort after page n-1.
    pages.forEach((page, n) => {
      const after = n === 0 ? null : pages[n - 1]!.at(-1)!;
      const expected = snapshots[n]!.sort(byUtf8).filter((id) => after === null || byUtf8(id, after) > 0).slice(0, 13);
      expect(page).toEqual(expected);
    });
    expect(pages.flat()).toContain(`${pages[0]!.at(-1)}-after-1`);
    expect(pages.flat().some((id) => id.startsWith("!before-"))).toBe(false);
    expect(pages.slice(0, -1).every((page) => page.length === 13)).toBe(true);
  });

  test("listing newest first across shards: newest updated_at first, ties by key descending, paged exactly, with records added between pages", async () => {
    const connectionId = newConnection();
    const time = (day: number) => new Date(Date.UTC(2026, 0, 1 + day)).toISOString();
    // Many ties (5 records per time) so that a tie spans shards and page boundaries.
    const initial = range(60).map((i) => lead(`n${String(i).padStart(3, "0")}`, { updated_at: time(i % 12) }));
    const undated = range(5).map((i) => lead(`u${i}`));
    await store.commitPage(await fenced({ connectionId, records: [...initial, ...undated] }));

    type Row = { id: string; newest: string };
    const rows = new Map<string, Row>([
      ...initial.map((r) => [r.key[0]!, { id: r.key[0]!, newest: String(r.doc["updated_at"]) }] as const),
      ...undated.map((r) => [r.key[0]!, { id: r.key[0]!, newest: "0" }] as const),
    ]);
    const newestFirst = (a: Row, b: Row) => (a.newest === b.newest ? byUtf8(b.id, a.id) : byUtf8(b.newest, a.newest));
    const expectedPages: string[][] = [];
    let remaining = [...rows.values()].sort(newestFirst);
    const pages = await listPaged(connectionId, 7, "newest", async (ids, page) => {
      expectedPages.push(remaining.slice(0, 7).map((row) => row.id));
      const last = remaining[6]!;
      remaining = remaining.slice(7);
      // A record newer than the cursor (already passed: never listed) and one older (listed when it sorts after the cursor).
      const older = { id: `older-${page}`, newest: time(-1 - page) };
      const newer = { id: `newer-${page}`, newest: time(100 + page) };
      await store.commitPage(
        await fenced({ connectionId, records: [older, newer].map((row) => lead(row.id, { updated_at: row.newest })) }),
      );
      if (newestFirst(older, last) > 0) remaining = [...remaining, older].sort(newestFirst);
      expect(ids).toEqual(expectedPages.at(-1));
    });
    expectedPages.push(remaining.map((row) => row.id));
    expect(pages).toEqual(expectedPages);
    expect(pages.flat()).not.toContain("newer-1");
    expect(pages.flat()).toContain("older-1");
  });

  test("a cursor is the one the unsharded release issued (the last record's key, and its newest value): such a cursor goes on after that record", async () => {
    const connectionId = newConnection();
    const ids = range(40).map((i) => `c${String(i).padStart(2, "0")}`);
    await store.commitPage(await fenced({ connectionId, records: ids.map((id, i) => lead(id, { updated_at: new Date(Date.UTC(2026, 0, 1 + (i % 4))).toISOString() })) }));
    // Built as the release before sharding built them (lambdas/adapters/dynamodb/records/dynamodb-record-store.ts, encodeCursor).
    const keyCursor = Buffer.from(JSON.stringify({ sk: "c09" }), "utf8").toString("base64url");
    const byKey = await store.listRecords(connectionId, "leads", { limit: 3, cursor: keyCursor });
    expect(byKey.records.map((doc) => doc["id"])).toEqual(["c10", "c11", "c12"]);
    expect(byKey.nextCursor).toBe(Buffer.from(JSON.stringify({ sk: "c12" }), "utf8").toString("base64url"));

    const newestCursor = Buffer.from(JSON.stringify({ sk: "c11", n: "2026-01-04T00:00:00.000Z" }), "utf8").toString("base64url");
    const byNewest = await store.listRecords(connectionId, "leads", { limit: 3, cursor: newestCursor, order: "newest" });
    expect(byNewest.records.map((doc) => doc["id"])).toEqual(["c07", "c03", "c38"]);
  });

  test("a cursor that could not have been issued is refused as such (InvalidCursorError, the API's 422), never sent to DynamoDB", async () => {
    const connectionId = newConnection();
    const cursor = (body: object) => Buffer.from(JSON.stringify(body), "utf8").toString("base64url");
    for (const [body, order] of [
      [{ sk: "x".repeat(1025) }, "key"],
      [{ sk: "a", n: "not a date" }, "newest"],
      [{ sk: "a", n: "9".repeat(2000) }, "newest"],
      [{ sk: "\u00e9".repeat(600), n: "0" }, "newest"],
    ] as const) {
      await expect(store.listRecords(connectionId, "leads", { limit: 5, cursor: cursor(body), order }), JSON.stringify(body).slice(0, 40)).rejects.toBeInstanceOf(
        InvalidCursorError,
      );
    }
  });

  test("a retried page leaves the same data: the same items under the same shard keys (only their lineage counts the second write)", async () => {
    const connectionId = newConnection();
    const big: RecordWrite = { collection: "tasks", key: ["big"], doc: { id: "big", text: "x".repeat(800_000) } };
    const page: Omit<PageWrite, "run"> = {
      connectionId,
      records: [...range(60).map((i) => lead(`r${i}`)), big],
      watermark: { entity: "leads", value: "2026-01-01T00:00:00.000Z" },
    };
    await store.commitPage(await fenced(page));
    const first = await recordItems(connectionId);
    await store.commitPage(await fenced(page));
    expect((await recordItems(connectionId)).map(withoutLineage)).toEqual(first.map(withoutLineage));
    expect(first.filter((item) => item["pk"]?.S?.startsWith("PART#")).length).toBeGreaterThan(0);
  });

  test("small collections are one shard: stage kinds are one query, and pipelines, stages and users live under their #00 key", async () => {
    const connectionId = newConnection();
    const stage = (pipeline: number, i: number): RecordWrite => ({
      collection: "stages",
      key: [`p${pipeline}`, `s${i}`],
      doc: { id: `s${i}`, name: `Stage ${i}`, kind: i === 0 ? "won" : i === 1 ? "lost" : "open", sort: i },
    });
    const small: RecordWrite[] = [
      ...range(3).map((i): RecordWrite => ({ collection: "pipelines", key: [`p${i}`], doc: { id: `p${i}`, name: `Pipeline ${i}`, stages: [] } })),
      ...range(3).flatMap((pipeline) => range(12).map((i) => stage(pipeline, i))),
      ...range(40).map((i): RecordWrite => ({ collection: "users", key: [`u${i}`], doc: { id: `u${i}`, name: `User ${i}` } })),
    ];
    for (let start = 0; start < small.length; start += 50) {
      await store.commitPage(await fenced({ connectionId, records: small.slice(start, start + 50) }));
    }
    // Reads: one strong Query for the stage kinds, one Query for a list page of a small collection.
    const client = testDynamoDbClient();
    const queried: string[] = [];
    client.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName === "QueryCommand") queried.push(String((args.input as { ExpressionAttributeValues: Record<string, { S: string }> }).ExpressionAttributeValues[":pk"]?.S));
        return next(args);
      },
      { step: "initialize" },
    );
    const counting = new DynamoDbRecordStore({ client, tableName: table.tableName });
    const kinds = await counting.getStageKinds(connectionId);
    expect(queried).toEqual([`REC#${connectionId}#stages#00`]);
    expect(kinds.get("p2")?.get("s0")).toBe("won");
    expect(kinds.get("p1")?.get("s1")).toBe("lost");
    expect([...kinds.values()].reduce((sum, stages) => sum + stages.size, 0)).toBe(36);

    // Writes: every head of a small collection under its one key, #00 like shard 0 of a large one.
    const heads = (await recordItems(connectionId)).filter((item) => item["pk"]?.S?.startsWith("REC#"));
    expect(heads).toHaveLength(small.length);
    for (const collection of ["pipelines", "stages", "users"] as const) {
      const keysOf = new Set(heads.filter((item) => item["pk"]?.S?.startsWith(`REC#${connectionId}#${collection}#`)).map((item) => item["pk"]?.S));
      expect([...keysOf], collection).toEqual([`REC#${connectionId}#${collection}#00`]);
    }

    // Listing a small collection: one Query per list page, in key order, paged by the same cursors.
    queried.length = 0;
    const listed: unknown[] = [];
    let cursor: string | null = null;
    do {
      const page = await counting.listRecords(connectionId, "users", { limit: 15, cursor });
      listed.push(...page.records.map((doc) => doc["id"]));
      cursor = page.nextCursor;
    } while (cursor !== null);
    expect(listed).toEqual(range(40).map((i) => `u${i}`).sort(byUtf8));
    expect(queried).toEqual(range(3).map(() => `REC#${connectionId}#users#00`));
    client.destroy();
  });

  test("records stored before sharding are re-synced: a watermark of the old layout reads as none, so the next run reads from sync_since", async () => {
    const connectionId = newConnection();
    // What the unsharded release wrote: the watermark under the entity's name alone.
    await table.client.send(
      new PutItemCommand({
        TableName: table.tableName,
        Item: { pk: { S: keys.watermarkPartitionKey(connectionId) }, sk: { S: "leads" }, value: { S: "2025-06-01T00:00:00.000Z" } },
      }),
    );
    expect(await store.getWatermark(connectionId, "leads")).toBeNull();

    await store.commitPage(await fenced({ connectionId, records: [lead("1")], watermark: { entity: "leads", value: "2026-01-01T00:00:00.000Z" } }));
    expect(await store.getWatermark(connectionId, "leads")).toBe("2026-01-01T00:00:00.000Z");
    const old = await table.client.send(
      new GetItemCommand({ TableName: table.tableName, Key: { pk: { S: keys.watermarkPartitionKey(connectionId) }, sk: { S: "leads" } } }),
    );
    expect(old.Item?.["value"]?.S).toBe("2025-06-01T00:00:00.000Z");
  });
});
