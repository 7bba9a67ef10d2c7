import { describe, expect, test } from "vitest";
import { inHistoryOrder, observedTransition, stageOf } from "../../../lambdas/domain/core/lead-history";

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
