import { describe, expect, test } from "vitest";
import { computeFunnel, FunnelBuilder } from "../../../lambdas/domain/figures/funnel-builder";

const NOW = new Date("2026-06-01T12:00:00.000Z");
const pipeline = { id: "p", name: "Sales", sort: 1 };
const stages = [{ id: "s", name: "New", kind: "open", sort: 1, pipeline_id: "p" }];
const lead = { id: "l", pipeline_id: "p", stage_id: "s", is_won: false, is_lost: false, is_deleted: false, price: 0 };
const task = (due_at: string | null, is_completed = false) => ({ id: `t-${due_at}-${is_completed}`, lead_id: "l", due_at, is_completed });

describe("computeFunnel (clock injected)", () => {
  test("a task is overdue when open and its due_at is before now: not at now, not without a due date, not once completed", () => {
    const funnel = computeFunnel(
      {
        pipelines: [pipeline],
        stages,
        leads: [lead],
        tasks: [task("2026-06-01T11:59:59.999Z"), task("2026-06-01T12:00:00.000Z"), task(null), task("2026-01-01T00:00:00.000Z", true)],
        calls: [],
      },
      NOW,
    );
    expect(funnel.pipelines[0]?.overdue_tasks).toBe(1);
    expect(funnel.computed_at).toBe(NOW.toISOString());
  });

  test("top loss reasons: at most 5, most frequent first, ties by text", () => {
    const lost = (id: string, loss_reason: string) => ({ ...lead, id, is_lost: true, loss_reason });
    const reasons = ["f", "e", "d", "c", "b", "a", "a", "b"];
    const funnel = computeFunnel({ pipelines: [pipeline], stages, leads: reasons.map((reason, i) => lost(`l${i}`, reason)), tasks: [], calls: [] }, NOW);
    expect(funnel.pipelines[0]?.top_loss_reasons).toEqual([
      { reason: "a", leads: 2 },
      { reason: "b", leads: 2 },
      { reason: "c", leads: 1 },
      { reason: "d", leads: 1 },
      { reason: "e", leads: 1 },
    ]);
  });

  test("lead.price whole part exact: revenue won sums stored prices exactly, a number while safe, its digits beyond 2^53", () => {
    const won = (id: string, price: number | string) => ({ ...lead, id, is_won: true, price });
    const revenue = (...prices: (number | string)[]) =>
      computeFunnel({ pipelines: [pipeline], stages, leads: prices.map((price, i) => won(`l${i}`, price)), tasks: [], calls: [] }, NOW).pipelines[0]?.revenue_won;
    expect(revenue(1500, 2500)).toBe(4000);
    expect(revenue(9007199254740991, 1)).toBe("9007199254740992");
    expect(revenue("123456789012345678901234", 1, "-4")).toBe("123456789012345678901231");
    expect(revenue("-9007199254740993", 2)).toBe(-9007199254740991);
  });
});

describe("reached from current stages (until stage history exists)", () => {
  const stage = (id: string, kind: string, sort: number) => ({ id, name: id, kind, sort, pipeline_id: "p" });
  const at = (id: string, stageId: string, flags: { is_won?: boolean; is_lost?: boolean } = {}) => ({ ...lead, id, stage_id: stageId, ...flags });
  const funnelOf = (stagesOf: Record<string, unknown>[], leads: Record<string, unknown>[]) => computeFunnel({ pipelines: [pipeline], stages: stagesOf, leads, tasks: [], calls: [] }, NOW).pipelines[0]!;

  test("a lead in an open or won stage counts as having reached every open stage before its own; a lost lead only its lost stage", () => {
    // Listed out of order: the funnel orders by sort.
    const stages4 = [stage("won", "won", 4), stage("b", "open", 2), stage("lost", "lost", 5), stage("a", "open", 1), stage("c", "open", 3)];
    const leads = [at("1", "a"), at("2", "b"), at("3", "b"), at("4", "c"), at("5", "won", { is_won: true }), at("6", "lost", { is_lost: true }), at("7", "lost", { is_lost: true })];
    const funnel = funnelOf(stages4, leads);
    expect(funnel.stages.map((row) => [row.id, row.leads, row.reached])).toEqual([["a", 1, 5], ["b", 2, 4], ["c", 1, 2], ["won", 1, 1], ["lost", 2, 2]]);
    // To the next open stage, the last open stage to won; to won from each.
    expect(funnel.stages.map((row) => [row.to_next, row.to_won])).toEqual([[4 / 5, 1 / 5], [2 / 4, 1 / 4], [1 / 2, 1 / 2], [null, null], [null, null]]);
  });

  test("a won stage sorted before an open one: its leads reached only the open stages before it", () => {
    const funnel = funnelOf([stage("a", "open", 1), stage("won", "won", 2), stage("late", "open", 3)], [at("1", "won", { is_won: true }), at("2", "late")]);
    expect(funnel.stages.map((row) => [row.id, row.reached])).toEqual([["a", 2], ["won", 1], ["late", 1]]);
    expect(funnel.stages[0]).toMatchObject({ to_next: 1 / 2, to_won: 1 / 2 });
    expect(funnel.stages[2]).toMatchObject({ to_next: 0, to_won: 0 });
  });

  test("a stage no lead reached has no conversion (null, not 0 of 0); same sort: by id", () => {
    const funnel = funnelOf([stage("y", "open", 1), stage("x", "open", 1), stage("won", "won", 2)], []);
    expect(funnel.stages.map((row) => [row.id, row.reached, row.to_next, row.to_won])).toEqual([["x", 0, null, null], ["y", 0, null, null], ["won", 0, null, null]]);
  });

  test("a lead whose stage is not one of its pipeline's is unresolved and reached nothing; a deleted lead counts nowhere", () => {
    const funnel = funnelOf([stage("a", "open", 1)], [at("1", "gone"), { ...at("2", "a"), is_deleted: true }]);
    expect(funnel.unresolved_won_lost).toBe(1);
    expect(funnel.stages[0]).toMatchObject({ leads: 0, reached: 0 });
  });

  test("the builder takes the records in any order: the same funnel", () => {
    const stagesOf = [stage("a", "open", 1), stage("won", "won", 2)];
    const leads = [at("1", "a"), at("2", "won", { is_won: true })];
    const tasks = [{ id: "t", lead_id: "2", due_at: "2000-01-01T00:00:00Z", is_completed: false }];
    const forwards = computeFunnel({ pipelines: [pipeline], stages: stagesOf, leads, tasks, calls: [] }, NOW);
    const builder = new FunnelBuilder(NOW);
    leads.forEach((doc) => builder.addLead(doc));
    tasks.forEach((doc) => builder.addTask(doc));
    stagesOf.forEach((doc) => builder.addStage(doc));
    builder.addPipeline(pipeline);
    expect(builder.build(null)).toEqual(forwards);
    expect(forwards.pipelines[0]?.overdue_tasks).toBe(1);
  });
});
