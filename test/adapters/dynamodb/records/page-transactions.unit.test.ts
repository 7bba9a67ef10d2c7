import { createHash } from "node:crypto";
import type { TransactWriteItem, TransactWriteItemsCommandInput } from "@aws-sdk/client-dynamodb";
import { describe, expect, test } from "vitest";
import type { PageWrite, RecordWrite } from "../../../../lambdas/domain/core/ports/record-store";
import { runLockPartitionKey } from "../../../../lambdas/adapters/dynamodb/runs/run-item/run-keys";
import { partPartitionKey, recordPartitionKey, stagedPartPrefix, watermarkPartitionKey, watermarkSortKey } from "../../../../lambdas/adapters/dynamodb/records/keys";
import { pageRun } from "../../../builders/page-runs";
import { writtenItem } from "../../../support/planned-items";
import { LOCK_ACTION_INDEX, PROGRESS_ACTION_INDEX, planPage, planPageTransactions } from "../../../../lambdas/adapters/dynamodb/records/page-transactions";
import { DOC_PART_MAX_BYTES, TRANSACTION_BYTE_BUDGET, TRANSACTION_MAX_ACTIONS, estimateItemBytes, splitUtf8 } from "../../../../lambdas/adapters/dynamodb/records/record-items";

const TABLE = "records";
const CONNECTION = "conn-1";

const lead = (id: string, extra: Record<string, unknown> = {}): RecordWrite => ({
  collection: "leads",
  key: [id],
  doc: { id, name: `Lead ${id}`, ...extra },
});
const lossReason = (id: string): RecordWrite => ({ collection: "loss_reasons", key: [id], doc: { id, text: `reason ${id}` } });
const stage = (pipelineId: string, stageId: string): RecordWrite => ({
  collection: "stages",
  key: [pipelineId, stageId],
  doc: { id: stageId, pipeline_id: pipelineId, kind: "open" },
});
const range = (n: number) => Array.from({ length: n }, (_, i) => i);
const withRun = (write: Omit<PageWrite, "run">): PageWrite => ({ ...write, run: pageRun() });

/** The key of an action that writes a record or the entity's watermark item (not the fence or the progress). */
function writtenKey(action: TransactWriteItem) {
  const key = writtenItem(action) ?? action.Update?.Key;
  return key?.["pk"]?.S?.startsWith("REC#") || key?.["pk"]?.S?.startsWith("PART#") || key?.["pk"]?.S === watermarkPartitionKey(CONNECTION) ? key : undefined;
}

/** (pk, sk) of every record and watermark write, in send order, with the index of its transaction. */
function puts(plan: TransactWriteItemsCommandInput[]) {
  return plan.flatMap((tx, txIndex) =>
    (tx.TransactItems ?? []).filter((action) => writtenKey(action) !== undefined).map((action) => ({
      tx: txIndex,
      pk: writtenKey(action)?.["pk"]?.S ?? "",
      sk: writtenKey(action)?.["sk"]?.S ?? "",
      table: (action.Put ?? action.Update)?.TableName,
    })),
  );
}

function txBytes(tx: TransactWriteItemsCommandInput): number {
  return (tx.TransactItems ?? []).reduce((sum, action) => sum + estimateItemBytes(writtenItem(action) ?? {}), 0);
}

describe("planPageTransactions", () => {
  test("a page of 100 leads + 30 loss reasons + watermark: at most 100 actions per transaction, watermark last and after every record", () => {
    const records = [...range(30).map((i) => lossReason(`r${i}`)), ...range(100).map((i) => lead(`l${i}`))];
    const plan = planPageTransactions(TABLE, withRun({
      connectionId: CONNECTION,
      records,
      watermark: { entity: "leads", value: "2024-05-01T00:00:00.000Z" },
    }));

    expect(plan.length).toBe(2);
    for (const tx of plan) expect(tx.TransactItems!.length).toBeLessThanOrEqual(TRANSACTION_MAX_ACTIONS);

    const all = puts(plan);
    expect(all.length).toBe(131);
    expect(all.every((put) => put.table === TABLE)).toBe(true);
    const last = all.at(-1)!;
    expect(last.pk).toBe(watermarkPartitionKey(CONNECTION));
    expect(last.sk).toBe(watermarkSortKey("leads"));
    expect(last.tx).toBe(plan.length - 1);
    // Records in the page's order: loss reasons first, then leads.
    expect(all.slice(0, -1).map((put) => put.sk)).toEqual(records.map((record) => record.key[0]));
    expect(all.slice(0, 30).every((put) => put.pk === recordPartitionKey(CONNECTION, "loss_reasons", put.sk))).toBe(true);
  });

  test("the closing actions (lease, progress, watermark) go in a transaction of their own when the last one is full", () => {
    const plan = planPageTransactions(TABLE, withRun({
      connectionId: CONNECTION,
      records: range(98).map((i) => lead(`l${i}`)),
      watermark: { entity: "leads", value: "2024-05-01T00:00:00.000Z" },
    }));
    // 98 records, their change item and the lock check, then the lease, the progress and the watermark.
    expect(plan.map((tx) => tx.TransactItems!.length)).toEqual([100, 3]);
    expect(puts(plan).at(-1)!.pk).toBe(watermarkPartitionKey(CONNECTION));
  });

  test("a /pipelines page with 500 stages is packed into transactions of at most 100 actions", () => {
    const records = range(500).map((i) => stage(`p${i % 5}`, `s${Math.floor(i / 5)}`));
    const plan = planPageTransactions(TABLE, withRun({ connectionId: CONNECTION, records, lastPage: true }));
    // 98 stages, their change item and the lock check per transaction; the last (10 stages and theirs) also carries the lease, the progress and the entity's data_as_of (its last page).
    expect(plan.map((tx) => tx.TransactItems!.length)).toEqual([100, 100, 100, 100, 100, 14]);
    const keys = puts(plan).filter((put) => put.pk.startsWith("REC#")).map((put) => put.sk);
    expect(new Set(keys).size).toBe(500);
  });

  test("stages are keyed by (pipeline, stage): the same stage id in two pipelines is two keys, and no pair collides", () => {
    const plan = planPageTransactions(TABLE, withRun({
      connectionId: CONNECTION,
      records: [stage("p1", "s1"), stage("p2", "s1"), stage("a#b", "c"), stage("a", "b#c"), stage('a","b', "c")],
    }));
    const keys = puts(plan).map((put) => put.sk);
    expect(new Set(keys).size).toBe(5);
  });

  test("a key repeated in a page is written once (DynamoDB rejects two actions on one item): first position, last document", () => {
    const plan = planPageTransactions(TABLE, withRun({
      connectionId: CONNECTION,
      records: [lossReason("r1"), lead("l1", { v: 1 }), { ...lossReason("r1"), doc: { id: "r1", text: "second" } }],
    }));
    const items = plan[0]!.TransactItems!.flatMap((action) => { const item = writtenItem(action); return item ? [item] : []; });
    expect(items.map((item) => item["sk"]!.S)).toEqual(["r1", "l1"]);
    expect(JSON.parse(items[0]!["doc"]!.S!)).toEqual({ id: "r1", text: "second" });
  });

  test("byte budget: each transaction stays under the 4 MB cap; a big record travels with all its parts", () => {
    const big = "x".repeat(300_000);
    const records = [
      ...range(20).map((i) => lead(`l${i}`, { note: big })),
      lead("huge", { note: "y".repeat(1_000_000) }),
      ...range(5).map((i) => lead(`m${i}`)),
    ];
    const plan = planPageTransactions(TABLE, withRun({
      connectionId: CONNECTION,
      records,
      watermark: { entity: "leads", value: "2024-05-01T00:00:00.000Z" },
    }));
    expect(plan.length).toBeGreaterThan(1);
    for (const tx of plan) expect(txBytes(tx)).toBeLessThanOrEqual(TRANSACTION_BYTE_BUDGET);
    for (const tx of plan) {
      for (const action of tx.TransactItems!) if (writtenItem(action)) expect(estimateItemBytes(writtenItem(action)!)).toBeLessThan(400 * 1024);
    }

    // The 1 MB record: head (with its part count) and its parts, all in one transaction.
    const all = puts(plan);
    const head = plan.flatMap((tx) => tx.TransactItems!).find((action) => writtenItem(action)?.["sk"]?.S === "huge")!;
    const parts = Number(writtenItem(head)!["parts"]!.N);
    const hugeDocBytes = Buffer.byteLength(JSON.stringify(records[20]!.doc), "utf8");
    expect(parts).toBe(Math.ceil(hugeDocBytes / DOC_PART_MAX_BYTES) - 1);
    const headIndex = all.findIndex((put) => put.sk === "huge");
    const group = all.slice(headIndex, headIndex + 1 + parts);
    expect(group.slice(1).every((put) => put.pk.startsWith("PART#"))).toBe(true);
    expect(new Set(group.map((put) => put.tx)).size).toBe(1);
    expect(all.at(-1)!.pk).toBe(watermarkPartitionKey(CONNECTION));
  });

  test("a record is stored whole at any size: a record too large for one transaction has its parts staged first, under its content's version; its head goes with the page", () => {
    const huge = { collection: "tasks" as const, key: ["t-huge"] as const, doc: { id: "t-huge", text: "z".repeat(5_000_000) } };
    const plan = planPage(TABLE, withRun({ connectionId: CONNECTION, records: [lead("fine"), huge], watermark: { entity: "tasks", value: "2024-05-01T00:00:00.000Z" } }));
    const json = JSON.stringify(huge.doc);
    const version = createHash("sha256").update(json).digest("base64url");
    const partPk = partPartitionKey(CONNECTION, "tasks", "t-huge");
    expect(plan.staged).toEqual([{ partitionKey: partPk, version }]);

    const all = puts(plan.transactions);
    const staged = all.filter((put) => put.sk.startsWith(stagedPartPrefix(version)));
    const headAt = all.findIndex((put) => put.sk === "t-huge");
    // Every staged part is sent in a transaction before the one that writes the head (which names them).
    expect(staged.length).toBe(Math.ceil(Buffer.byteLength(json) / DOC_PART_MAX_BYTES) - 1);
    expect(staged.every((put) => put.pk === partPk && put.tx < all[headAt]!.tx)).toBe(true);
    const head = writtenItem(plan.transactions.flatMap((tx) => tx.TransactItems!).find((action) => writtenItem(action)?.["sk"]?.S === "t-huge")!)!;
    expect(head["parts_version"]).toEqual({ S: version });
    expect(head["parts"]).toEqual({ N: String(staged.length) });
    // Head and parts join back to the document exactly.
    const chunks = plan.transactions.flatMap((tx) => tx.TransactItems!).flatMap((action) => (action.Put?.Item?.["sk"]?.S?.startsWith(stagedPartPrefix(version)) ? [action.Put.Item["doc"]!.S!] : []));
    expect(`${head["doc"]!.S!}${chunks.join("")}`).toBe(json);
    for (const tx of plan.transactions) {
      expect(tx.TransactItems!.length).toBeLessThanOrEqual(TRANSACTION_MAX_ACTIONS);
      expect(txBytes(tx)).toBeLessThanOrEqual(TRANSACTION_BYTE_BUDGET);
      expect(tx.TransactItems![LOCK_ACTION_INDEX]!.ConditionCheck ?? tx.TransactItems![LOCK_ACTION_INDEX]!.Update).toBeDefined();
    }
    expect(all.at(-1)!.pk).toBe(watermarkPartitionKey(CONNECTION));
  });

  test("a record is stored whole at any size: the same content stages the same items (a replay rewrites them); changed content stages another version", () => {
    const task = (text: string) => ({ collection: "tasks" as const, key: ["t-big"] as const, doc: { id: "t-big", text } });
    const stagedOf = (text: string) => planPage(TABLE, withRun({ connectionId: CONNECTION, records: [task(text)] })).staged;
    expect(stagedOf("a".repeat(4_000_000))).toEqual(stagedOf("a".repeat(4_000_000)));
    expect(stagedOf("a".repeat(4_000_000))[0]!.version).not.toBe(stagedOf(`${"a".repeat(3_999_999)}b`)[0]!.version);
    // A record that fits one transaction with its parts stages nothing.
    expect(stagedOf("a".repeat(1_000_000))).toEqual([]);
  });

  test("a page with nothing to write is still one transaction: the run's fence, lease and progress, and on the entity's last page its data_as_of", () => {
    const empty = planPageTransactions(TABLE, withRun({ connectionId: CONNECTION, records: [], lastPage: true }));
    expect(empty.map((tx) => tx.TransactItems!.map((action) => Object.keys(action)[0]))).toEqual([["Update", "Update", "Update"]]);
    expect(empty[0]!.TransactItems![2]!.Update!.UpdateExpression).toBe("SET #dataAsOf = :dataAsOf");
    // A page with more to come leaves data_as_of alone: nothing but the fence, the lease and the progress.
    const more = planPageTransactions(TABLE, withRun({ connectionId: CONNECTION, records: [], lastPage: false }));
    expect(more.map((tx) => tx.TransactItems!.length)).toEqual([2]);
    const plan = planPageTransactions(TABLE, withRun({
      connectionId: CONNECTION,
      records: [],
      watermark: { entity: "contacts", value: "2024-05-01T00:00:00.000Z" },
    }));
    expect(plan.map((tx) => tx.TransactItems!.length)).toEqual([3]);
  });

  test("every transaction of a page checks that its run still holds the connection's lock", () => {
    const plan = planPageTransactions(TABLE, {
      connectionId: CONNECTION,
      records: range(250).map((i) => lead(`l${i}`)),
      watermark: { entity: "leads", value: "2024-05-01T00:00:00.000Z" },
      run: pageRun({ runId: "run-7", page: 3 }),
    });
    expect(plan.length).toBe(3);
    for (const tx of plan) {
      const lock = tx.TransactItems![LOCK_ACTION_INDEX]!;
      const fence = lock.ConditionCheck ?? lock.Update!;
      expect(fence.Key!["pk"]!.S).toBe(runLockPartitionKey(CONNECTION));
      expect(fence.ConditionExpression).toBe("#runId = :runId AND attribute_not_exists(#reset)");
      expect(fence.ExpressionAttributeValues![":runId"]).toEqual({ S: "run-7" });
    }
    const last = plan.at(-1)!.TransactItems!;
    expect(last[LOCK_ACTION_INDEX]!.Update!.ExpressionAttributeValues![":leaseUntil"]).toBeDefined();
    const progress = last[PROGRESS_ACTION_INDEX]!.Update!;
    expect(progress.ConditionExpression).toContain("#entities.#entity.#lastPage < :page");
    expect(progress.ExpressionAttributeValues![":page"]).toEqual({ N: "3" });
  });

  test("an unusable key (empty id) is refused before any write", () => {
    expect(() => planPageTransactions(TABLE, withRun({ connectionId: CONNECTION, records: [lead("")] }))).toThrow(TypeError);
  });
});

describe("splitUtf8", () => {
  test("cuts only between code points, keeps every chunk within the limit, and joins back exactly", () => {
    const text = "aé漢😀".repeat(3_000); // 1-, 2-, 3- and 4-byte characters
    for (const max of [4, 5, 7, 1000, 33_333]) {
      const chunks = splitUtf8(text, max);
      expect(chunks.join("")).toBe(text);
      for (const chunk of chunks) {
        expect(Buffer.byteLength(chunk, "utf8")).toBeLessThanOrEqual(max);
        expect(chunk).not.toMatch(/\uFFFD/);
        expect(Buffer.from(chunk, "utf8").toString("utf8")).toBe(chunk); // no lone surrogate
      }
    }
  });

  test("text within the limit is one chunk", () => {
    expect(splitUtf8("😀😀", 8)).toEqual(["😀😀"]);
  });
});
