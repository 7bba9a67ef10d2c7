import { describe, expect, test } from "vitest";
import { computeFunnel } from "../../../lambdas/domain/onboarding/funnel-analytics";

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
