import { describe, expect, test } from "vitest";
import { computeVelocity, nearestRank } from "../../../lambdas/domain/onboarding/velocity-analytics";
import type { StageTransition } from "../../../lambdas/domain/core/lead-history";

const DAY = 86_400;
const at = (day: string) => `2026-${day}T00:00:00.000Z`;
/** A lead's path through pipeline p1: [stage, day] in order; the first is its entry. */
function path(leadId: string, steps: [string, string][]): StageTransition[] {
  return steps.map(([stage, day], index) => ({
    lead_id: leadId,
    pipeline_id: "p1",
    from_stage_id: index === 0 ? null : steps[index - 1]![0],
    to_stage_id: stage,
    at: at(day),
    source: "observed",
    seen_at: at(day),
    source_updated_at: at(day),
    run_id: "r",
    event_id: null,
  }));
}
const stages = [
  { pipeline_id: "p1", id: "a", kind: "open", sort: 1 },
  { pipeline_id: "p1", id: "b", kind: "open", sort: 2 },
  { pipeline_id: "p1", id: "w", kind: "won", sort: 3 },
  { pipeline_id: "p1", id: "l", kind: "lost", sort: 4 },
];
const lead = (id: string, stage: string, extra: Record<string, unknown> = {}) => ({ id, pipeline_id: "p1", stage_id: stage, is_deleted: false, ...extra });
const transitions = [
  ...path("L1", [["a", "01-01"], ["b", "01-03"], ["w", "01-10"]]),
  ...path("L2", [["a", "01-02"], ["b", "01-12"]]),
  ...path("L3", [["a", "01-05"], ["l", "01-06"]]),
  ...path("L4", [["a", "02-01"]]),
];
const NOW = new Date(at("03-01"));

describe("computeVelocity", () => {
  const velocity = computeVelocity({ pipelines: [{ id: "p1", sort: 1 }], stages, leads: [lead("L1", "w"), lead("L2", "b"), lead("L3", "l"), lead("L4", "a")], transitions }, NOW);
  const [p1] = velocity.pipelines;

  test("per month, each stage's entries, their conversion to the next stage and to won", () => {
    expect(p1!.periods.map((period) => period.period)).toEqual(["2026-01", "2026-02"]);
    const january = Object.fromEntries(p1!.periods[0]!.stages.map((stage) => [stage.stage_id, [stage.entered, stage.to_next, stage.to_won, stage.conversion_to_next, stage.conversion_to_won]]));
    expect(january).toEqual({ a: [3, 2, 1, 2 / 3, 1 / 3], b: [2, 1, 1, 0.5, 0.5], w: [1, 0, 0, 0, 0], l: [1, null, 0, null, 0] });
    expect(p1!.periods[1]!.stages[0]).toMatchObject({ stage_id: "a", entered: 1, to_next: 0, to_won: 0, median_seconds_in_stage: null });
  });

  test("median and 90th percentile (nearest rank) of the time spent in a stage by the entries that left it", () => {
    const [a, b, w] = p1!.periods[0]!.stages;
    // a: L3 1 day, L1 2 days, L2 10 days.
    expect([a!.median_seconds_in_stage, a!.p90_seconds_in_stage]).toEqual([2 * DAY, 10 * DAY]);
    // b: only L1 left it, after 7 days; L2 is still there.
    expect([b!.median_seconds_in_stage, b!.p90_seconds_in_stage]).toEqual([7 * DAY, 7 * DAY]);
    expect(w!.median_seconds_in_stage).toBeNull();
  });

  test("the open leads waiting longest where they stand, longest first; won, lost and deleted leads are not waiting", () => {
    expect(p1!.longest_waiting).toEqual([
      { lead_id: "L2", stage_id: "b", since: at("01-12"), seconds: 48 * DAY },
      { lead_id: "L4", stage_id: "a", since: at("02-01"), seconds: 28 * DAY },
    ]);
    const deleted = computeVelocity({ pipelines: [{ id: "p1" }], stages, leads: [lead("L2", "b", { is_deleted: true }), lead("L4", "a")], transitions }, NOW);
    expect(deleted.pipelines[0]!.longest_waiting.map((waiting) => waiting.lead_id)).toEqual(["L4"]);
  });
});

describe("nearestRank", () => {
  test("the smallest value with at least p of the values at or below it; none for no values", () => {
    expect(nearestRank([], 0.5)).toBeNull();
    expect(nearestRank([5], 0.9)).toBe(5);
    expect(nearestRank([1, 2, 3, 4], 0.5)).toBe(2);
    expect(nearestRank(Array.from({ length: 10 }, (_, i) => i + 1), 0.9)).toBe(9);
    expect(nearestRank(Array.from({ length: 11 }, (_, i) => i + 1), 0.9)).toBe(10);
  });
});
