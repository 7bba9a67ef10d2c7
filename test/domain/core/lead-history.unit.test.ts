import { describe, expect, test } from "vitest";
import { inHistoryOrder, observedTransition, preferReported, reportedTransition, stageOf } from "../../../lambdas/domain/core/lead-history";

const PAGE = { runId: "run-1", committedAt: "2026-03-01T00:00:00.000Z" };
const doc = (stage: string | null, extra: Record<string, unknown> = {}) => ({ id: "l1", pipeline_id: "p1", stage_id: stage, created_at: "2026-01-01T00:00:00.000Z", updated_at: "2026-02-01T00:00:00.000Z", ...extra });

describe("observedTransition", () => {
  test("first sight: the entry into its first stage, at its created_at", () => {
    expect(observedTransition(null, doc("s1"), "l1", PAGE)).toMatchObject({ from_stage_id: null, to_stage_id: "s1", at: "2026-01-01T00:00:00.000Z", seen_at: PAGE.committedAt, source: "observed" });
  });

  test("first sight without a created_at that parses: the entry at the page's commit", () => {
    expect(observedTransition(null, doc("s1", { created_at: null }), "l1", PAGE)?.at).toBe(PAGE.committedAt);
  });

  test("first sight without a stage records nothing", () => {
    expect(observedTransition(null, doc(null), "l1", PAGE)).toBeNull();
  });

  test("the same stage and pipeline records nothing (a re-sent identical lead, a replayed page)", () => {
    expect(observedTransition({ pipelineId: "p1", stageId: "s1" }, doc("s1", { name: "edited" }), "l1", PAGE)).toBeNull();
  });

  test("a move: from the stored stage, at the source's updated_at, else at the commit", () => {
    expect(observedTransition({ pipelineId: "p1", stageId: "s1" }, doc("s2"), "l1", PAGE)).toMatchObject({ from_stage_id: "s1", to_stage_id: "s2", at: "2026-02-01T00:00:00.000Z", source_updated_at: "2026-02-01T00:00:00.000Z" });
    expect(observedTransition({ pipelineId: "p1", stageId: "s1" }, doc("s2", { updated_at: null }), "l1", PAGE)).toMatchObject({ at: PAGE.committedAt, source_updated_at: null });
  });

  test("the same stage id in another pipeline is a move (stage ids repeat across pipelines)", () => {
    expect(observedTransition({ pipelineId: "p0", stageId: "s1" }, doc("s1"), "l1", PAGE)).toMatchObject({ from_stage_id: "s1", to_stage_id: "s1", pipeline_id: "p1" });
  });

  test("a stage taken away is a move to null; an empty stage id reads as none", () => {
    expect(observedTransition({ pipelineId: "p1", stageId: "s1" }, doc(""), "l1", PAGE)).toMatchObject({ from_stage_id: "s1", to_stage_id: null });
    expect(stageOf({ pipeline_id: "", stage_id: 7 })).toEqual({ pipelineId: null, stageId: null });
  });
});

describe("inHistoryOrder", () => {
  test("by time; at the same time the entry first", () => {
    const base = { lead_id: "l1", pipeline_id: "p1", source: "observed" as const, seen_at: "x", source_updated_at: null, run_id: "r", event_id: null };
    const move = { ...base, from_stage_id: "a", to_stage_id: "b", at: "2026-01-01T00:00:00.000Z" };
    const entry = { ...base, from_stage_id: null, to_stage_id: "a", at: "2026-01-01T00:00:00.000Z" };
    const early = { ...base, from_stage_id: "z", to_stage_id: "y", at: "1999-01-01T00:00:00.000Z" };
    expect(inHistoryOrder([move, entry, early])).toEqual([early, entry, move]);
  });
});

describe("reportedTransition and preferReported", () => {
  const event = (extra: Record<string, unknown>) => ({ id: "e1", lead_id: "l1", type: "stage_changed", value_before: { value: "s1" }, value_after: { value: "s2" }, created_at: "2026-02-01T10:00:00.000Z", ...extra });

  test("a type naming a stage, a stage after it and a time: a reported move at the event's time", () => {
    expect(reportedTransition(event({}), PAGE, null)).toMatchObject({ lead_id: "l1", from_stage_id: "s1", to_stage_id: "s2", at: "2026-02-01T10:00:00.000Z", source: "reported", event_id: "e1", pipeline_id: null });
    expect(reportedTransition(event({ type: "Lead STAGE moved", value_after: { stage_id: "s3", pipeline_id: "p9" }, value_before: null }), PAGE, null)).toMatchObject({ from_stage_id: null, to_stage_id: "s3", pipeline_id: "p9" });
    expect(reportedTransition(event({ value_after: { value: 42 } }), PAGE, null)?.to_stage_id).toBe("42");
  });

  test("no move: another type, no stage after, no time that parses, an array value", () => {
    expect(reportedTransition(event({ type: "note" }), PAGE, null)).toBeNull();
    expect(reportedTransition(event({ value_after: null }), PAGE, null)).toBeNull();
    expect(reportedTransition(event({ created_at: null }), PAGE, null)).toBeNull();
    expect(reportedTransition(event({ value_after: ["s2"] }), PAGE, null)).toBeNull();
  });

  test("an observed move the source also reported is dropped; the reported one takes the observed pipeline when it names none", () => {
    const observed = observedTransition({ pipelineId: "p1", stageId: "s1" }, doc("s2"), "l1", PAGE)!;
    const entry = observedTransition(null, doc("s1"), "l1", PAGE)!;
    const reported = reportedTransition(event({}), PAGE, null)!;
    expect(preferReported([entry, observed, reported])).toEqual([entry, { ...reported, pipeline_id: "p1" }]);
  });
});
