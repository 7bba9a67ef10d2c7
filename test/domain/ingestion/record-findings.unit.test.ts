import { describe, expect, test } from "vitest";
import type { SyncEntity } from "../../../lambdas/domain/core/entities";
import type { StageKinds } from "../../../lambdas/domain/core/ports/record-store";
import { entityDefinition } from "../../../lambdas/domain/source-contract/entity-catalog";
import { preparePage } from "../../../lambdas/domain/ingestion/prepare-page";
import { pageFindings, recordFindingIds, tallyPage, type FindingContext } from "../../../lambdas/domain/ingestion/record-findings";
import { RULES_BY_ID } from "../../../lambdas/domain/source-contract/rules/catalog";
import { parseRecord } from "../../../lambdas/domain/records/parse-record";
import { callRecord, contactRecord, eventRecord, leadRecord, taskRecord } from "../../builders/source-records";

const stageKinds: StageKinds = new Map([["pipeline-1", new Map([["stage-1", "open" as const]])]]);
const context = { stageKinds, userIds: new Set(["user-1"]) };

/** The rule ids the sync counts for one record, parsed by the sync's own schema. */
function idsOf(entity: SyncEntity, raw: Record<string, unknown>, findingContext: FindingContext = context): string[] {
  return recordFindingIds(entity, raw, parseRecord(entityDefinition(entity).schema, raw, 0), findingContext);
}

const lead = (overrides: Record<string, unknown> = {}) => leadRecord({ pipeline_id: "pipeline-1", stage_id: "stage-1", responsible_user_id: "user-1", ...overrides });

/** Each silent rule: a record that breaks it alone hits exactly it; the same record kept right hits nothing. */
describe("the silent rules a run counts, one record at a time", () => {
  test("records that keep every rule hit none", () => {
    expect(idsOf("contacts", contactRecord({ responsible_user_id: "user-1" }))).toEqual([]);
    expect(idsOf("leads", lead())).toEqual([]);
    expect(idsOf("tasks", taskRecord())).toEqual([]);
    expect(idsOf("calls", callRecord())).toEqual([]);
    expect(idsOf("events", eventRecord())).toEqual([]);
  });

  test("record.updated-at", () => {
    expect(idsOf("tasks", taskRecord({ updated_at: "yesterday" }))).toEqual(["record.updated-at"]);
    expect(idsOf("leads", lead({ updated_at: undefined }))).toEqual(["record.updated-at"]);
    // Events fall back to created_at, as their watermark does.
    expect(idsOf("events", eventRecord({ updated_at: "yesterday" }))).toEqual(["record.timestamp-format"]);
  });

  test("record.timestamp-format", () => {
    expect(idsOf("leads", lead({ closed_at: "31/12/2026" }))).toEqual(["record.timestamp-format"]);
  });

  test("record.text-truncated", () => {
    expect(idsOf("contacts", contactRecord({ responsible_user_id: "user-1", name: "n".repeat(256) }))).toEqual(["record.text-truncated"]);
  });

  test("record.custom-fields-object", () => {
    expect(idsOf("contacts", contactRecord({ responsible_user_id: "user-1", custom_fields: ["a", "b"] }))).toEqual(["record.custom-fields-object"]);
    expect(idsOf("leads", lead({ custom_fields: "tier=gold" }))).toEqual(["record.custom-fields-object"]);
    // An empty object is stored as null too, but nothing is lost.
    expect(idsOf("leads", lead({ custom_fields: {} }))).toEqual([]);
    expect(idsOf("leads", lead({ custom_fields: null }))).toEqual([]);
  });

  test("task.unlinked", () => {
    expect(idsOf("tasks", taskRecord({ lead_id: null, contact_id: null }))).toEqual(["task.unlinked"]);
    expect(idsOf("tasks", taskRecord({ lead_id: "", contact_id: undefined }))).toEqual(["task.unlinked"]);
    expect(idsOf("tasks", taskRecord({ lead_id: null, contact_id: "contact-1" }))).toEqual([]);
  });

  test("call.direction-defaulted", () => {
    expect(idsOf("calls", callRecord({ direction: "IN" }))).toEqual(["call.direction-defaulted"]);
    expect(idsOf("calls", callRecord({ direction: undefined }))).toEqual(["call.direction-defaulted"]);
    expect(idsOf("calls", callRecord({ direction: "in" }))).toEqual([]);
  });

  test("reference.stage", () => {
    expect(idsOf("leads", lead({ stage_id: "stage-gone" }))).toEqual(["reference.stage"]);
    expect(idsOf("leads", lead({ pipeline_id: "pipeline-gone" }))).toEqual(["reference.stage"]);
    // As in the kit: a lead with no stage names nothing that could resolve (unresolved_won_lost still counts it).
    expect(idsOf("leads", lead({ stage_id: null }))).toEqual([]);
  });

  test("reference.user", () => {
    expect(idsOf("calls", callRecord({ responsible_user_id: "user-gone" }))).toEqual(["reference.user"]);
    expect(idsOf("contacts", contactRecord({ responsible_user_id: "user-gone" }))).toEqual(["reference.user"]);
    // No users known (none stored yet, or not read): not checked rather than every record flagged.
    expect(idsOf("calls", callRecord({ responsible_user_id: "user-gone" }), { stageKinds, userIds: new Set() })).toEqual([]);
    expect(idsOf("calls", callRecord({ responsible_user_id: "user-gone" }), { stageKinds, userIds: null })).toEqual([]);
  });

  test("every rule id the sync counts is in the kit's catalog, with the severity it reports", () => {
    const page = preparePage({
      entity: "tasks",
      page: 1,
      data: [taskRecord({ id: "t1", updated_at: "never", lead_id: null, responsible_user_id: "user-gone", due_at: "soon" })],
      previous: null,
      stageKinds,
      userIds: context.userIds,
    });
    expect(page.findings.map((f) => f.rule).sort()).toEqual(["record.timestamp-format", "record.updated-at", "reference.user", "task.unlinked"]);
    for (const finding of page.findings) expect(finding.severity).toBe(RULES_BY_ID.get(finding.rule)!.severity);
  });
});

describe("a page's findings", () => {
  const unlinked = (id: string) => taskRecord({ id, lead_id: null, contact_id: null });

  test("count distinct records: an id repeated within the page counts once (its last occurrence, as it is written)", () => {
    const page = preparePage({
      entity: "tasks",
      page: 1,
      data: [unlinked("t1"), unlinked("t2"), taskRecord({ id: "t1" }), unlinked("t3")],
      previous: null,
      stageKinds,
    });
    expect(page.findings).toEqual([expect.objectContaining({ rule: "task.unlinked", ids: ["t2", "t3"] })]);
    expect(page.findings[0]!.detail).toMatch(/^record t2: a task with neither lead_id nor contact_id/);
    expect(page.ruleIdsById).toEqual(new Map([["t1", []], ["t2", ["task.unlinked"]], ["t3", ["task.unlinked"]]]));
  });

  test("sample ids stop at 5 per rule across the run's pages: the page appends only what the run has room for", () => {
    const page = (ids: string[]) => tallyPage(ids.map((id) => ({ id, hits: [{ rule: "task.unlinked", severity: "warning" as const, detail: `record ${id}` }] })));
    const first = pageFindings(page(["t1", "t2", "t3"]), {});
    expect(first.findings).toEqual([{ rule: "task.unlinked", severity: "warning", count: 3, sampleIds: ["t1", "t2", "t3"], detail: "record t1" }]);
    const second = pageFindings(page(["t4", "t5", "t6"]), first.sampled);
    expect(second.findings[0]).toMatchObject({ count: 3, sampleIds: ["t4", "t5"] });
    const third = pageFindings(page(["t7"]), second.sampled);
    expect(third.findings[0]).toMatchObject({ count: 1, sampleIds: [] });
    expect(third.sampled).toEqual({ "task.unlinked": 5 });
  });
});
