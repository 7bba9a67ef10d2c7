import { randomUUID } from "node:crypto";
import { GetItemCommand, TransactWriteItemsCommand, paginateQuery, type DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { describe, expect, test } from "vitest";
import type { Collection } from "../../../../lambdas/domain/core/entities";
import { RunSupersededError, SyncSinceChangedError } from "../../../../lambdas/domain/core/errors";
import type { PageFinding, PageWrite, RecordWrite } from "../../../../lambdas/domain/core/ports/record-store";
import { DynamoDbRecordStore } from "../../../../lambdas/adapters/dynamodb/records/dynamodb-record-store";
import { InvalidCursorError } from "../../../../lambdas/domain/core/errors";
import { DynamoDbRunStore } from "../../../../lambdas/adapters/dynamodb/runs/dynamodb-run-store";
import { recordPartitionKey, recordShardPartitionKey, recordShardPartitionKeys, watermarkPartitionKey, watermarkSortKey } from "../../../../lambdas/adapters/dynamodb/records/keys";
import { FAR_LEASE, fencedPages, pageRun, runHoldingLock } from "../../../builders/page-runs";
import { planPageTransactions } from "../../../../lambdas/adapters/dynamodb/records/page-transactions";
import { testDynamoDbClient, useTestTable } from "../../../support/dynamodb";
import { clientFailingTransactions } from "../../../support/failing-transactions";

const table = useTestTable();
const store = new DynamoDbRecordStore(table);


const newConnection = () => `conn-${randomUUID()}`;

/** Each write becomes the next page of its connection's run holding the lock. */
const fenced = fencedPages(() => new DynamoDbRunStore(table));
const range = (n: number) => Array.from({ length: n }, (_, i) => i);
const pad = (i: number) => String(i).padStart(4, "0");

const lead = (id: string, extra: Record<string, unknown> = {}): RecordWrite => ({
  collection: "leads",
  key: [id],
  doc: { id, name: `Lead ${id}`, price: 100, is_deleted: false, ...extra },
});
const lossReason = (id: string): RecordWrite => ({ collection: "loss_reasons", key: [id], doc: { id, text: `reason ${id}` } });
const stage = (pipelineId: string, stageId: string, kind: "open" | "won" | "lost"): RecordWrite => ({
  collection: "stages",
  key: [pipelineId, stageId],
  doc: { id: stageId, pipeline_id: pipelineId, name: `Stage ${stageId}`, kind, sort: 0, color: null },
});
const pipeline = (id: string): RecordWrite => ({
  collection: "pipelines",
  key: [id],
  doc: { id, name: `Pipeline ${id}`, is_archived: false, sort: 0 },
});
const task = (id: string, text: string): RecordWrite => ({
  collection: "tasks",
  key: [id],
  doc: { id, text, lead_id: null, contact_id: null, is_completed: false },
});

/** Every record of a collection, through listRecords. */
async function listAll(connectionId: string, collection: Collection): Promise<Record<string, unknown>[]> {
  const all: Record<string, unknown>[] = [];
  let cursor: string | null = null;
  do {
    const page = await store.listRecords(connectionId, collection, { limit: 1000, cursor });
    all.push(...page.records);
    cursor = page.nextCursor;
  } while (cursor !== null);
  return all;
}

/** Items stored in a collection's partitions (every shard), counted by DynamoDB itself. */
async function storedCount(connectionId: string, collection: Collection): Promise<number> {
  let count = 0;
  for (const pk of recordShardPartitionKeys(connectionId, collection)) count += await storedCountIn(pk);
  return count;
}

async function storedCountIn(pk: string): Promise<number> {
  let count = 0;
  const query = { TableName: table.tableName, KeyConditionExpression: "pk = :pk", ExpressionAttributeValues: { ":pk": { S: pk } }, Select: "COUNT" as const, ConsistentRead: true };
  for await (const page of paginateQuery({ client: table.client }, query)) count += page.Count ?? 0;
  return count;
}

const leadsPage = (connectionId: string, watermark: string): Omit<PageWrite, "run"> => ({
  connectionId,
  records: [...range(50).map((i) => lossReason(`r${pad(i)}`)), ...range(100).map((i) => lead(`l${pad(i)}`, { loss_reason_id: `r${pad(i % 50)}` }))],
  watermark: { entity: "leads", value: watermark },
});

describe("DynamoDbRecordStore on DynamoDB Local", () => {
  test("upsert by (connection, id) is idempotent: replaying a page leaves the same items, no duplicates", async () => {
    const connectionId = newConnection();
    const page = leadsPage(connectionId, "2024-03-01T00:00:00.000Z");
    await store.commitPage(await fenced(page));
    const first = await listAll(connectionId, "leads");
    await store.commitPage(await fenced(page));
    await store.commitPage(await fenced(page));

    expect(await storedCount(connectionId, "leads")).toBe(100);
    expect(await storedCount(connectionId, "loss_reasons")).toBe(50);
    expect(await listAll(connectionId, "leads")).toEqual(first);
    expect(await store.getWatermark(connectionId, "leads")).toBe("2024-03-01T00:00:00.000Z");
  });

  test("a page of 100 leads + 50 loss reasons + watermark commits (more than DynamoDB's 100 actions per transaction)", async () => {
    const connectionId = newConnection();
    expect(await store.getWatermark(connectionId, "leads")).toBeNull();
    await store.commitPage(await fenced(leadsPage(connectionId, "2024-04-02T10:00:00.000Z")));

    const leads = await listAll(connectionId, "leads");
    expect(leads.map((doc) => doc["id"])).toEqual(range(100).map((i) => `l${pad(i)}`));
    expect(await listAll(connectionId, "loss_reasons")).toHaveLength(50);
    expect(await store.getWatermark(connectionId, "leads")).toBe("2024-04-02T10:00:00.000Z");
    expect(await store.getWatermark(connectionId, "contacts")).toBeNull();
  });

  test("the engine itself refuses one transaction of 101 actions (why a page is split into several)", async () => {
    const connectionId = newConnection();
    const items = range(101).map((i) => ({
      Put: { TableName: table.tableName, Item: { pk: { S: recordShardPartitionKey(connectionId, "leads", 0) }, sk: { S: `x${i}` }, doc: { S: "{}" } } },
    }));
    await expect(table.client.send(new TransactWriteItemsCommand({ TransactItems: items }))).rejects.toThrow(/less than or equal to 100/);
    expect(await storedCount(connectionId, "leads")).toBe(0);
  });

  test("watermark is never ahead of committed records: a failure between transactions leaves it unmoved", async () => {
    const connectionId = newConnection();
    await store.commitPage(await fenced({ connectionId, records: [lead("l-old")], watermark: { entity: "leads", value: "2024-01-01T00:00:00.000Z" } }));

    const failing = clientFailingTransactions(2, "only");
    const failingStore = new DynamoDbRecordStore({ client: failing, tableName: table.tableName });
    const page = leadsPage(connectionId, "2024-06-01T00:00:00.000Z");
    await expect(failingStore.commitPage(await fenced(page))).rejects.toThrow("injected failure of transaction 2");
    failing.destroy();

    // The first transaction (the lock check, 50 loss reasons, 48 leads, their change item) is there; the watermark is not moved.
    expect(await storedCount(connectionId, "loss_reasons")).toBe(50);
    expect(await storedCount(connectionId, "leads")).toBe(49);
    expect(await store.getWatermark(connectionId, "leads")).toBe("2024-01-01T00:00:00.000Z");

    // The next attempt replays the page from the old watermark: complete, no duplicates.
    await store.commitPage(await fenced(page));
    expect(await storedCount(connectionId, "loss_reasons")).toBe(50);
    expect(await storedCount(connectionId, "leads")).toBe(101);
    expect(await store.getWatermark(connectionId, "leads")).toBe("2024-06-01T00:00:00.000Z");
  });

  test("stages are keyed by (connection, pipeline, stage): the same stage id in two pipelines is two rows", async () => {
    const connectionId = newConnection();
    await store.commitPage(await fenced({
      connectionId,
      records: [pipeline("p1"), pipeline("p2"), stage("p1", "s1", "open"), stage("p2", "s1", "lost"), stage("p1", "s2", "won")],
    }));
    expect(await storedCount(connectionId, "stages")).toBe(3);
    const stages = await listAll(connectionId, "stages");
    expect(stages.map((doc) => [doc["pipeline_id"], doc["id"], doc["kind"]]).sort()).toEqual([
      ["p1", "s1", "open"],
      ["p1", "s2", "won"],
      ["p2", "s1", "lost"],
    ]);
  });

  test("getStageKinds maps pipeline id -> stage id -> kind for the stages synced so far", async () => {
    const connectionId = newConnection();
    expect((await store.getStageKinds(connectionId)).size).toBe(0);
    await store.commitPage(await fenced({
      connectionId,
      records: [stage("p1", "s1", "open"), stage("p1", "s2", "won"), stage("p2", "s1", "lost"), stage("p#3", "s\"4", "won")],
    }));
    await store.commitPage(await fenced({ connectionId, records: [stage("p1", "s1", "lost")] })); // a later sync reclassifies s1

    const kinds = await store.getStageKinds(connectionId);
    expect(
      Object.fromEntries([...kinds].map(([pipelineId, stages]) => [pipelineId, Object.fromEntries(stages)])),
    ).toEqual({ p1: { s1: "lost", s2: "won" }, p2: { s1: "lost" }, "p#3": { 's"4': "won" } });
    expect((await store.getStageKinds(newConnection())).size).toBe(0);
  });

  test("getUserIds returns the id of every user stored for the connection, and no other connection's", async () => {
    const connectionId = newConnection();
    expect((await store.getUserIds(connectionId)).size).toBe(0);
    const user = (id: string): RecordWrite => ({ collection: "users", key: [id], doc: { id, name: null, email: null, role: null, is_active: true } });
    await store.commitPage(await fenced({ connectionId, records: [user("u1"), user('u"2'), user("u#3")] }));
    await store.commitPage(await fenced({ connectionId: newConnection(), records: [user("elsewhere")] }));
    expect([...(await store.getUserIds(connectionId))].sort()).toEqual(["u#3", 'u"2', "u1"].sort());
  });

  test("a /pipelines page with 100 pipelines and 600 stages commits", async () => {
    const connectionId = newConnection();
    const records = [
      ...range(100).map((p) => pipeline(`p${p}`)),
      ...range(600).map((i) => stage(`p${i % 100}`, `s${Math.floor(i / 100)}`, i % 3 === 0 ? "won" : "open")),
    ];
    await store.commitPage(await fenced({ connectionId, records }));
    expect(await storedCount(connectionId, "pipelines")).toBe(100);
    expect(await storedCount(connectionId, "stages")).toBe(600);
    const kinds = await store.getStageKinds(connectionId);
    expect(kinds.size).toBe(100);
    expect([...kinds.values()].every((stages) => stages.size === 6)).toBe(true);
  });

  test("a later write replaces a record (upsert), and a soft-deleted lead stays stored with is_deleted true", async () => {
    const connectionId = newConnection();
    await store.commitPage(await fenced({ connectionId, records: [lead("l1", { price: 1 }), lead("l2")] }));
    await store.commitPage(await fenced({ connectionId, records: [lead("l1", { price: 2, is_deleted: true })] }));
    // Omission from a later page never deletes: l2 is still there.
    await store.commitPage(await fenced({ connectionId, records: [lead("l3")] }));

    const leads = await listAll(connectionId, "leads");
    expect(leads).toEqual([lead("l1", { price: 2, is_deleted: true }).doc, lead("l2").doc, lead("l3").doc]);
  });

  test("different connections are isolated: same ids, separate records and watermarks", async () => {
    const a = newConnection();
    const b = newConnection();
    await store.commitPage(await fenced({ connectionId: a, records: [lead("l1", { name: "from a" })], watermark: { entity: "leads", value: "2024-01-01T00:00:00.000Z" } }));
    await store.commitPage(await fenced({ connectionId: b, records: [lead("l1", { name: "from b" })], watermark: { entity: "leads", value: "2025-01-01T00:00:00.000Z" } }));

    expect((await listAll(a, "leads")).map((doc) => doc["name"])).toEqual(["from a"]);
    expect((await listAll(b, "leads")).map((doc) => doc["name"])).toEqual(["from b"]);
    expect(await store.getWatermark(a, "leads")).toBe("2024-01-01T00:00:00.000Z");
    expect(await store.getWatermark(b, "leads")).toBe("2025-01-01T00:00:00.000Z");
  });

  test("arbitrary source JSON (any depth, any key) round-trips exactly", async () => {
    const connectionId = newConnection();
    const custom = {
      "": "empty key",
      pk: "not a key",
      "a.b": { "#x": [1, 2.5, -0.001, 1e21, null, true, "", { deep: { deeper: { deepest: ["é", "漢", "😀", "\u0000\n\t\"\\"] } } }] },
      __proto__x: "fine",
      nested: Array.from({ length: 30 }).reduce<unknown>((inner) => ({ inner }), "bottom"),
    };
    const write: RecordWrite = { collection: "contacts", key: ["c-1"], doc: { id: "c-1", custom_fields: custom } };
    await store.commitPage(await fenced({ connectionId, records: [write] }));
    expect(await listAll(connectionId, "contacts")).toEqual([write.doc]);
  });

  test("a task whose text is 1 MB is split into parts in one transaction and round-trips byte-exact", async () => {
    const connectionId = newConnection();
    const text = Array.from({ length: 1024 * 1024 }, (_, i) => String.fromCharCode(32 + (i % 95))).join("");
    await store.commitPage(await fenced({ connectionId, records: [task("t-big", text), task("t-small", "hello")] }));

    const head = await table.client.send(
      new GetItemCommand({ TableName: table.tableName, Key: { pk: { S: recordPartitionKey(connectionId, "tasks", "t-big") }, sk: { S: "t-big" } } }),
    );
    expect(Number(head.Item?.["parts"]?.N)).toBeGreaterThanOrEqual(2);

    const tasks = await listAll(connectionId, "tasks");
    expect(tasks.map((doc) => doc["id"])).toEqual(["t-big", "t-small"]);
    expect(tasks[0]!["text"] === text).toBe(true);
    expect(Buffer.from(tasks[0]!["text"] as string, "utf8").equals(Buffer.from(text, "utf8"))).toBe(true);
  });

  test("a task of 1 MB of 4-byte emoji round-trips exactly: parts are cut on code-point boundaries", async () => {
    const connectionId = newConnection();
    const emoji = ["😀", "🚀", "𝄞", "🧪"];
    const text = Array.from({ length: 256 * 1024 }, (_, i) => emoji[i % 4]).join("");
    expect(Buffer.byteLength(text, "utf8")).toBe(1024 * 1024);
    await store.commitPage(await fenced({ connectionId, records: [task("t-emoji", text)] }));

    const [doc] = await listAll(connectionId, "tasks");
    expect(doc!["text"] === text).toBe(true);
  });

  test("a split record that shrinks, grows or stops being split reads back as its latest version", async () => {
    const connectionId = newConnection();
    const versions = ["a".repeat(1_200_000), "b".repeat(400_000), "c".repeat(10), "d".repeat(900_000)];
    for (const text of versions) {
      await store.commitPage(await fenced({ connectionId, records: [task("t1", text)] }));
      const [doc] = await listAll(connectionId, "tasks");
      expect(doc!["text"] === text).toBe(true);
    }
    expect(await storedCount(connectionId, "tasks")).toBe(1);
  });

  test("a record close to the transaction byte budget commits on the real engine", async () => {
    const connectionId = newConnection();
    const text = "q".repeat(3_500_000);
    await store.commitPage(await fenced({ connectionId, records: [task("t-max", text)], watermark: { entity: "tasks", value: "2024-01-01T00:00:00.000Z" } }));
    const [doc] = await listAll(connectionId, "tasks");
    expect(doc!["text"] === text).toBe(true);
    expect(await store.getWatermark(connectionId, "tasks")).toBe("2024-01-01T00:00:00.000Z");
  });

  test("listRecords pages by limit and cursor and returns nextCursor null at the end", async () => {
    const connectionId = newConnection();
    await store.commitPage(await fenced({ connectionId, records: range(25).map((i) => lead(`l${pad(i)}`)) }));

    const seen: unknown[] = [];
    const sizes: number[] = [];
    let cursor: string | null = null;
    do {
      const page = await store.listRecords(connectionId, "leads", { limit: 10, cursor });
      sizes.push(page.records.length);
      seen.push(...page.records.map((doc) => doc["id"]));
      cursor = page.nextCursor;
    } while (cursor !== null);
    expect(sizes).toEqual([10, 10, 5]);
    expect(seen).toEqual(range(25).map((i) => `l${pad(i)}`));

    // An exact multiple of the limit: the last full page already says there is no more.
    const first = await store.listRecords(connectionId, "leads", { limit: 5, cursor: null });
    expect(first.nextCursor).not.toBeNull();
    const whole = await store.listRecords(connectionId, "leads", { limit: 25 });
    expect(whole.records).toHaveLength(25);
    expect(whole.nextCursor).toBeNull();

    const empty = await store.listRecords(newConnection(), "leads", { limit: 10 });
    expect(empty).toEqual({ records: [], nextCursor: null });
  });

  test("listRecords order newest: by updated_at newest first (else created_at, undated last), paged by cursor, a rewrite moves a record up", async () => {
    const connectionId = newConnection();
    // updated_at in mixed forms: fractional seconds and an offset must still compare as times, not strings.
    const times = range(12).map((i) => new Date(Date.UTC(2026, 0, 1 + i, 12)).toISOString());
    await store.commitPage(
      await fenced({
        connectionId,
        records: [
          ...times.map((time, i) =>
            lead(`l${pad(i)}`, { updated_at: i % 3 === 0 ? time.replace(".000Z", "+00:00") : i % 3 === 1 ? time.replace(".000Z", "Z") : time }),
          ),
          // Half a second after l0004's "...12:00:00Z": as strings it would sort before it ('.' < 'Z').
          lead("l-fraction", { updated_at: "2026-01-05T12:00:00.5Z" }),
          lead("l-created-only", { updated_at: null, created_at: "2026-01-09T13:00:00Z" }),
          lead("l-undated", { updated_at: null }),
        ],
      }),
    );
    const ids: unknown[] = [];
    const sizes: number[] = [];
    let cursor: string | null = null;
    do {
      const page = await store.listRecords(connectionId, "leads", { limit: 4, cursor, order: "newest" });
      sizes.push(page.records.length);
      ids.push(...page.records.map((doc) => doc["id"]));
      cursor = page.nextCursor;
    } while (cursor !== null);
    expect(sizes).toEqual([4, 4, 4, 3]);
    const l = (i: number) => `l${pad(i)}`;
    expect(ids).toEqual([l(11), l(10), l(9), "l-created-only", l(8), l(7), l(6), l(5), "l-fraction", l(4), l(3), l(2), l(1), l(0), "l-undated"]);

    // A record updated again at the source is newest after its rewrite.
    await store.commitPage(await fenced({ connectionId, records: [lead(l(0), { updated_at: "2026-02-01T00:00:00Z" })] }));
    const first = await store.listRecords(connectionId, "leads", { limit: 2, order: "newest" });
    expect(first.records.map((doc) => doc["id"])).toEqual([l(0), l(11)]);

    // One order's cursor is refused by the other.
    await expect(store.listRecords(connectionId, "leads", { limit: 2, cursor: first.nextCursor, order: "key" })).rejects.toBeInstanceOf(InvalidCursorError);
    const byKey = await store.listRecords(connectionId, "leads", { limit: 2 });
    await expect(store.listRecords(connectionId, "leads", { limit: 2, cursor: byKey.nextCursor, order: "newest" })).rejects.toBeInstanceOf(InvalidCursorError);
  });

  test("listRecords refuses a limit outside 1..1000 and a cursor it did not issue", async () => {
    const connectionId = newConnection();
    await expect(store.listRecords(connectionId, "leads", { limit: 0 })).rejects.toBeInstanceOf(RangeError);
    await expect(store.listRecords(connectionId, "leads", { limit: 1001 })).rejects.toBeInstanceOf(RangeError);
    await expect(store.listRecords(connectionId, "leads", { limit: 1.5 })).rejects.toBeInstanceOf(RangeError);
    await expect(store.listRecords(connectionId, "leads", { limit: 10, cursor: "not a cursor!" })).rejects.toBeInstanceOf(InvalidCursorError);
    await expect(store.listRecords(connectionId, "leads", { limit: 10, cursor: "e30" })).rejects.toBeInstanceOf(InvalidCursorError);
  });

  test("watermarks live apart from records: listing a collection never returns them or record parts", async () => {
    const connectionId = newConnection();
    await store.commitPage(await fenced({
      connectionId,
      records: [task("t1", "x".repeat(800_000))],
      watermark: { entity: "tasks", value: "2024-01-01T00:00:00.000Z" },
    }));
    expect(await storedCount(connectionId, "tasks")).toBe(1);
    const wm = await table.client.send(
      new GetItemCommand({ TableName: table.tableName, Key: { pk: { S: watermarkPartitionKey(connectionId) }, sk: { S: watermarkSortKey("tasks") } } }),
    );
    expect(wm.Item?.["value"]?.S).toBe("2024-01-01T00:00:00.000Z");
  });
});

describe("the run's fence and progress in the page's transactions", () => {
  const runStore = () => new DynamoDbRunStore(table);
  const row = async (connectionId: string, runId: string, entity: string) =>
    (await runStore().get(connectionId, runId))!.entities.find((progress) => progress.entity === entity);

  test("a run that lost its connection's lock writes nothing, in any transaction of its page", async () => {
    const connectionId = newConnection();
    const run = await runHoldingLock(runStore(), connectionId, "run-old");
    await runStore().begin({ connectionId, runId: "run-new", startedAt: "2026-01-01T00:00:00.000Z", leaseUntil: FAR_LEASE }, { replacing: "run-old" });

    const page = run.page(leadsPage(connectionId, "2024-06-01T00:00:00.000Z"));
    expect(planPageTransactions(table.tableName, page).length).toBeGreaterThan(1);
    await expect(store.commitPage(page)).rejects.toBeInstanceOf(RunSupersededError);
    expect(await storedCount(connectionId, "leads")).toBe(0);
    expect(await storedCount(connectionId, "loss_reasons")).toBe(0);
    expect(await store.getWatermark(connectionId, "leads")).toBeNull();
  });

  test("a page committed again under the same page number is counted once, and its records are written as fetched now", async () => {
    const connectionId = newConnection();
    const run = await runHoldingLock(runStore(), connectionId);
    const first = run.page({ connectionId, records: [lead("l1", { price: 1 })], watermark: { entity: "leads", value: "2024-01-01T00:00:00.000Z" } });
    const counted = { ...first, run: { ...first.run, records: 1, unresolvedWonLost: 1 } };
    await store.commitPage(counted);
    await store.commitPage({ ...counted, records: [lead("l1", { price: 2 })] });

    expect(await row(connectionId, run.runId, "leads")).toMatchObject({ pages: 1, records: 1 });
    expect((await runStore().get(connectionId, run.runId))!.unresolved_won_lost).toBe(1);
    expect(await listAll(connectionId, "leads")).toEqual([expect.objectContaining({ id: "l1", price: 2 })]);
  });

  test("progress adds each page once: pages, records and unresolved won/lost leads; a pipelines page counts its stages too", async () => {
    const connectionId = newConnection();
    const run = await runHoldingLock(runStore(), connectionId);
    const counts = (write: PageWrite, records: number, stages = 0, unresolvedWonLost = 0): PageWrite => ({
      ...write,
      run: { ...write.run, records, stages, unresolvedWonLost },
    });
    await store.commitPage(counts(run.page({ connectionId, records: [] }, "pipelines"), 3, 14));
    await store.commitPage(counts(run.page({ connectionId, records: [] }, "pipelines"), 1, 5));
    await store.commitPage(counts(run.page({ connectionId, records: [] }, "leads"), 100, 0, 2));
    await store.commitPage(counts(run.page({ connectionId, records: [] }, "leads"), 37, 0, 1));

    expect(await row(connectionId, run.runId, "pipelines")).toMatchObject({ pages: 2, records: 4 });
    expect(await row(connectionId, run.runId, "stages")).toMatchObject({ pages: 2, records: 19 });
    expect(await row(connectionId, run.runId, "leads")).toMatchObject({ pages: 2, records: 137 });
    expect(await row(connectionId, run.runId, "users")).toMatchObject({ pages: 0, records: 0 });
    expect((await runStore().get(connectionId, run.runId))!.unresolved_won_lost).toBe(3);
  });

  test("findings ride on the page's progress: counts add once per page number, samples append, the first detail stays", async () => {
    const connectionId = newConnection();
    const run = await runHoldingLock(runStore(), connectionId);
    const withFindings = (write: PageWrite, findings: PageFinding[]): PageWrite => ({ ...write, run: { ...write.run, findings } });
    const unlinked = (count: number, sampleIds: string[], detail: string): PageFinding => ({ rule: "task.unlinked", severity: "warning", count, sampleIds, detail });
    const first = withFindings(run.page({ connectionId, records: [] }, "tasks"), [
      unlinked(2, ["t1", "t2"], "record t1: first"),
      { rule: "record.updated-at", severity: "error", count: 1, sampleIds: ["t3"], detail: "record t3: " + "x".repeat(400) },
    ]);
    await store.commitPage(first);
    await store.commitPage(first); // replayed after it committed: refused at the progress condition
    await store.commitPage(withFindings(run.page({ connectionId, records: [] }, "tasks"), [unlinked(3, ["t4", "t5", "t6"], "record t4: later")]));

    expect((await row(connectionId, run.runId, "tasks"))!.findings).toEqual([
      { rule: "record.updated-at", severity: "error", count: 1, sample_ids: ["t3"], detail: "record t3: " + "x".repeat(289) },
      { rule: "task.unlinked", severity: "warning", count: 5, sample_ids: ["t1", "t2", "t4", "t5", "t6"], detail: "record t1: first" },
    ]);
    expect((await row(connectionId, run.runId, "leads"))!.findings).toEqual([]);
  });

  test("watermarks reset under a running run: its next page writes nothing and fails with SyncSinceChangedError", async () => {
    const connectionId = newConnection();
    const run = await runHoldingLock(runStore(), connectionId);
    await store.commitPage(run.page({ connectionId, records: [lead("l1")], watermark: { entity: "leads", value: "2024-01-01T00:00:00.000Z" } }));
    await store.resetWatermarks(connectionId);

    const next = run.page({ connectionId, records: [lead("l2")], watermark: { entity: "leads", value: "2024-02-01T00:00:00.000Z" } });
    await expect(store.commitPage(next)).rejects.toBeInstanceOf(SyncSinceChangedError);
    expect(await store.getWatermark(connectionId, "leads")).toBeNull();
    expect((await listAll(connectionId, "leads")).map((doc) => doc["id"])).toEqual(["l1"]);
  });

  test("resetWatermarks with no run under way creates no lock", async () => {
    const connectionId = newConnection();
    await store.resetWatermarks(connectionId);
    const begun = await runStore().begin({ connectionId, runId: "run-1", startedAt: "2026-01-01T00:00:00.000Z", leaseUntil: FAR_LEASE });
    expect(begun.started).toBe(true);
    await store.commitPage({ connectionId, records: [lead("l1")], run: pageRun({ runId: "run-1" }) });
    expect(await storedCount(connectionId, "leads")).toBe(1);
  });
});
