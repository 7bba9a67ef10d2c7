import type { AttributeValue } from "@aws-sdk/client-dynamodb";
import { describe, expect, test } from "vitest";
import {
  HEAL_GUARD_CONDITION,
  NEW_IN_RUN_CONDITION,
  WRITTEN_ONCE_CONDITION,
  headUpdate,
  retryOfRefusedHead,
} from "../../../../lambdas/adapters/dynamodb/records/head-writes";
import { recordPartitionCollection, recordPartitionKey } from "../../../../lambdas/adapters/dynamodb/records/keys";
import { recordItems } from "../../../../lambdas/adapters/dynamodb/records/record-items";
import { pageFence, progressWithout } from "../../../../lambdas/adapters/dynamodb/runs/run-item/progress-writes";
import { pageRun } from "../../../builders/page-runs";

const lead = { collection: "leads" as const, key: ["l1"] as const, doc: { id: "l1" } };
const head = (page: number, audit = false) => {
  const write = audit ? { ...lead, heal: { auditId: "audit-1", cause: "missed" as const, updatedAt: null, watermark: null, at: "2026-01-01T00:00:00.000Z" } } : lead;
  return { Update: headUpdate("records", recordItems("conn-1", write).items[0]!, write, pageRun({ runId: "run-1", page })) };
};
/** A stored head as a refusal returns it: last written by `page` of run-1, first by `first`. */
const stored = (page: number, first?: number): Record<string, AttributeValue> => ({
  last_written: { M: { run_id: { S: "run-1" }, page: { N: String(page) }, ...(first === undefined ? {} : { run_first_page: { N: String(first) } }) } },
});

describe("records counts distinct records: the form a refused head is sent again in", () => {
  test("records counts distinct records: a sync's head is first sent on condition that no page of its run wrote it, asking for the stored head if refused", () => {
    const update = head(3).Update;
    expect(update.ConditionExpression).toBe(NEW_IN_RUN_CONDITION);
    expect(update.ReturnValuesOnConditionCheckFailure).toBe("ALL_OLD");
    expect(update.ExpressionAttributeValues?.[":lastWritten"]?.M?.["run_first_page"]).toEqual({ N: "3" });
  });

  test("records counts distinct records: last written by an earlier page of the run: written again and counted by that page, not this one", () => {
    const retry = retryOfRefusedHead(head(3), stored(2, 1))!;
    expect(retry.countedEarlier).toBe(true);
    expect(retry.action.Update?.ConditionExpression).toBe(WRITTEN_ONCE_CONDITION);
    expect(retry.action.Update?.ExpressionAttributeValues?.[":inc"]).toEqual({ N: "1" });
    expect(retry.action.Update?.ExpressionAttributeValues?.[":lastWritten"]?.M?.["run_first_page"]).toEqual({ N: "1" });
  });

  test("records counts distinct records: a replay of the page that first wrote it counts it (its progress may not have committed); of a later page, not", () => {
    const first = retryOfRefusedHead(head(3), stored(3, 3))!;
    expect(first).toMatchObject({ countedEarlier: false });
    expect(first.action.Update?.ConditionExpression).toBeUndefined();
    expect(first.action.Update?.ExpressionAttributeValues?.[":inc"]).toEqual({ N: "0" });
    expect(retryOfRefusedHead(head(3), stored(3, 1))).toMatchObject({ countedEarlier: true });
    // The form sent for an earlier page's record, refused in turn (this page wrote it meanwhile): a replay, still counted earlier.
    expect(retryOfRefusedHead(retryOfRefusedHead(head(3), stored(2, 1))!.action, stored(3, 1))).toMatchObject({ countedEarlier: true });
  });

  test("records counts distinct records: an audit's head keeps its guard and counts as before", () => {
    const retry = retryOfRefusedHead(head(2, true), undefined)!;
    expect(retry).toMatchObject({ countedEarlier: false });
    expect(retry.action.Update?.ConditionExpression).toBe(HEAL_GUARD_CONDITION);
  });

  test("records counts distinct records: the page's progress leaves out what earlier pages counted, records and a pipelines page's stages", () => {
    const { progress } = pageFence("records", "conn-1", pageRun({ entity: "pipelines", page: 2, records: 5, stages: 9 }));
    const lowered = progressWithout(progress, { records: 2, stages: 4 });
    expect(lowered.ExpressionAttributeValues?.[":records"]).toEqual({ N: "3" });
    expect(lowered.ExpressionAttributeValues?.[":stages"]).toEqual({ N: "5" });
    expect(recordPartitionCollection(recordPartitionKey("conn#with#hashes", "stages", "x"))).toBe("stages");
  });
});
