import { randomUUID } from "node:crypto";
import { describe, expect, test } from "vitest";
import type { PageWrite, RecordWrite } from "../../../../lambdas/domain/core/ports/record-store";
import { DynamoDbRecordStore } from "../../../../lambdas/adapters/dynamodb/records/dynamodb-record-store";
import { DynamoDbRunStore } from "../../../../lambdas/adapters/dynamodb/runs/dynamodb-run-store";
import { DynamoDbHistoryStore } from "../../../../lambdas/adapters/dynamodb/history/dynamodb-history-store";
import { DynamoDbChangeStore } from "../../../../lambdas/adapters/dynamodb/changes/dynamodb-change-store";
import { planPage } from "../../../../lambdas/adapters/dynamodb/records/page-transactions";
import { readStoredStages } from "../../../../lambdas/adapters/dynamodb/records/stored-stages";
import { inHistoryOrder } from "../../../../lambdas/domain/core/lead-history";
import { PAGE_COMMITTED_AT, runHoldingLock } from "../../../builders/page-runs";
import { useTestTable } from "../../../support/dynamodb";

const table = useTestTable();
const records = new DynamoDbRecordStore(table);
const history = new DynamoDbHistoryStore(table);
const changes = new DynamoDbChangeStore(table);

const NOW = new Date("2026-01-02T00:00:00.000Z");
const lead = (id: string, stage: string | null, updatedAt: string, extra: Record<string, unknown> = {}): RecordWrite => ({
  collection: "leads",
  key: [id],
  doc: { id, pipeline_id: "p1", stage_id: stage, created_at: "2025-12-01T00:00:00.000Z", updated_at: updatedAt, is_deleted: false, ...extra },
  lineage: { sourceUpdatedAt: updatedAt, findings: [] },
});
const page = (connectionId: string, leads: RecordWrite[]): Omit<PageWrite, "run"> => ({ connectionId, records: leads });

/** Every change of the connection's feed, read from the start. */
async function allChanges(connectionId: string) {
  return (await changes.listChanges(connectionId, { cursor: null, limit: 1000, now: NOW })).entries;
}

/** The connection, a run holding its lock, and the moves as (from, to) per lead. */
async function started() {
  const connectionId = `conn-${randomUUID()}`;
  const run = await runHoldingLock(new DynamoDbRunStore(table), connectionId);
  const moves = async (leadId: string) => inHistoryOrder(await history.leadTransitions(connectionId, leadId)).map((t) => [t.from_stage_id, t.to_stage_id, t.at]);
  return { connectionId, run, moves };
}

describe("stage history written by the page transactions", () => {
  test("a lead's first sight records its entry into its first stage at its created_at", async () => {
    const { connectionId, run, moves } = await started();
    await records.commitPage(run.page(page(connectionId, [lead("l1", "new", "2026-01-01T00:00:00.000Z"), lead("l2", null, "2026-01-01T00:00:00.000Z", { created_at: null })])));
    expect(await moves("l1")).toEqual([[null, "new", "2025-12-01T00:00:00.000Z"]]);
    // No stage: nothing to enter yet.
    expect(await moves("l2")).toEqual([]);
  });

  test("a stage move is one transition at the source's updated_at; a re-sent identical lead records nothing", async () => {
    const { connectionId, run, moves } = await started();
    await records.commitPage(run.page(page(connectionId, [lead("l1", "new", "2026-01-01T00:00:00.000Z")])));
    await records.commitPage(run.page(page(connectionId, [lead("l1", "new", "2026-01-01T00:00:00.000Z")])));
    await records.commitPage(run.page(page(connectionId, [lead("l1", "won", "2026-01-01T03:00:00.000Z")])));
    await records.commitPage(run.page(page(connectionId, [lead("l1", "won", "2026-01-01T04:00:00.000Z", { name: "renamed" })])));
    expect(await moves("l1")).toEqual([
      [null, "new", "2025-12-01T00:00:00.000Z"],
      ["new", "won", "2026-01-01T03:00:00.000Z"],
    ]);
  });

  test("a replayed page records nothing twice: no second transition, no second change item", async () => {
    const { connectionId, run, moves } = await started();
    await records.commitPage(run.page(page(connectionId, [lead("l1", "new", "2026-01-01T00:00:00.000Z")])));
    const move = run.page(page(connectionId, [lead("l1", "lost", "2026-01-01T05:00:00.000Z")]));
    await records.commitPage(move);
    await records.commitPage(move);
    expect(await moves("l1")).toEqual([
      [null, "new", "2025-12-01T00:00:00.000Z"],
      ["new", "lost", "2026-01-01T05:00:00.000Z"],
    ]);
    expect((await allChanges(connectionId)).map((change) => change.key[0])).toEqual(["l1", "l1"]);
  });

  test("a page cut between its transactions and replayed: each move recorded once, in the transaction of its lead", async () => {
    const { connectionId, run, moves } = await started();
    const ids = Array.from({ length: 150 }, (_, i) => `l${String(i).padStart(3, "0")}`);
    await records.commitPage(run.page(page(connectionId, ids.map((id) => lead(id, "new", "2026-01-01T00:00:00.000Z")))));
    const write = run.page(page(connectionId, ids.map((id) => lead(id, "won", "2026-01-01T06:00:00.000Z"))));
    // Each moving lead is its head and its transition: 49 leads per transaction of 100 actions.
    const plan = planPage(table.tableName, write, null, await readStoredStages({ client: table.client, tableName: table.tableName }, write));
    expect(plan.transactions.length).toBe(4);
    // The first transaction commits, then the task dies before the next; the retry commits the page whole.
    let committed = 0;
    table.client.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName !== "TransactWriteItemsCommand") return next(args);
        if (committed >= 1) throw new Error("the page task died");
        const out = await next(args);
        committed += 1;
        return out;
      },
      { step: "initialize", name: "die-after-one-transaction" },
    );
    await expect(records.commitPage(write)).rejects.toThrow("the page task died");
    table.client.middlewareStack.remove("die-after-one-transaction");
    await records.commitPage(write);
    for (const id of [ids[0]!, ids[48]!, ids[49]!, ids[149]!]) {
      expect(await moves(id)).toEqual([
        [null, "new", "2025-12-01T00:00:00.000Z"],
        ["new", "won", "2026-01-01T06:00:00.000Z"],
      ]);
    }
    const all = await history.allTransitions(connectionId);
    expect(all.filter((t) => t.from_stage_id === "new").length).toBe(150);
  });
});

describe("the change items written by the page transactions", () => {
  test("each record once per commit, in commit order, a soft-deleted lead as a delete", async () => {
    const { connectionId, run } = await started();
    await records.commitPage(run.page(page(connectionId, [lead("a", "new", "2026-01-01T00:00:00.000Z"), lead("b", "new", "2026-01-01T00:00:00.000Z"), lead("a", "new", "2026-01-01T00:00:00.000Z")])));
    await records.commitPage(run.page(page(connectionId, [lead("b", "new", "2026-01-01T01:00:00.000Z", { is_deleted: true })])));
    const all = await allChanges(connectionId);
    expect(all.map((change) => [change.key[0], change.action])).toEqual([
      ["a", "upsert"],
      ["b", "upsert"],
      ["b", "delete"],
    ]);
    expect(all.every((change) => change.committedAt === PAGE_COMMITTED_AT && change.runId === run.runId)).toBe(true);
  });
});
