import { describe, expect, test } from "vitest";
import { ManagerAggregateBuilder } from "../../../lambdas/domain/analytics/aggregate-builder";
import { figuresOf, figuresOfRows, histogramMedian, overdueAt, roundedMean } from "../../../lambdas/domain/analytics/manager-figures";
import type { ManagerSnapshot } from "../../../lambdas/domain/analytics/manager-aggregates";

const AT = new Date("2026-03-31T12:00:00.000Z");
type Doc = Record<string, unknown>;

function snapshot(docs: { users?: Doc[]; leads?: Doc[]; tasks?: Doc[]; calls?: Doc[] }): ManagerSnapshot {
  const builder = new ManagerAggregateBuilder(AT);
  for (const stage of [{ pipeline_id: "p", id: "open", kind: "open" }, { pipeline_id: "p", id: "won", kind: "won" }, { pipeline_id: "p", id: "lost", kind: "lost" }]) builder.addStage(stage);
  for (const user of docs.users ?? [{ id: "u1", name: "Anna" }]) builder.addUser(user);
  for (const task of docs.tasks ?? []) builder.addTask(task);
  for (const call of docs.calls ?? []) builder.addCall(call);
  for (const lead of docs.leads ?? []) builder.addLead(lead);
  return builder.build("v");
}
const figures = (s: ManagerSnapshot, now = AT, period = { from: "2026-03-02", to: "2026-03-31" }, idleDays = 14) =>
  figuresOfRows(s.rows, s.months, period, now, idleDays);

describe("median days to won", () => {
  test("the median of a histogram is its middle value, or the mean of the two middle ones; none for an empty one", () => {
    expect(histogramMedian(new Map())).toBeNull();
    expect(histogramMedian(new Map([[5, 1]]))).toBe(5);
    expect(histogramMedian(new Map([[1, 1], [9, 1]]))).toBe(5);
    expect(histogramMedian(new Map([[2, 3], [100, 1]]))).toBe(2);
    expect(histogramMedian(new Map([[10, 2], [0, 2], [3, 0]]))).toBe(5);
    expect(histogramMedian(new Map([[1, 1], [2, 1], [30, 1]]))).toBe(2);
  });
});

describe("now-figures at any later instant", () => {
  const open = (id: string, due: string): Doc => ({ id, responsible_user_id: "u1", is_completed: false, due_at: due });
  const row = snapshot({ tasks: [open("a", "2026-03-01T00:00:00.000Z"), open("b", "2026-03-31T12:00:00.000Z"), open("c", "2026-04-30T00:00:00.000Z")] }).rows[0]!.row;

  test("a task is overdue when it is due strictly before now, to the millisecond", () => {
    expect(overdueAt(row, Date.parse("2026-03-31T12:00:00.000Z"))).toBe(1);
    expect(overdueAt(row, Date.parse("2026-03-31T12:00:00.001Z"))).toBe(2);
    expect(overdueAt(row, Date.parse("2026-04-30T00:00:00.001Z"))).toBe(3);
  });
});

describe("coaching signals", () => {
  const lead = (id: string, created: string): Doc => ({ id, pipeline_id: "p", stage_id: "open", responsible_user_id: "u1", created_at: created });
  const signal = (s: ManagerSnapshot, rule: string, now = AT, idle = 14) => figures(s, now, undefined, idle)[0]!.signals.find((entry) => entry.rule === rule);

  test("idle leads are counted in whole UTC days: a lead last touched on day D is idle from day D + the connection's idle_days", () => {
    const s = snapshot({ leads: [lead("a", "2026-03-17T23:59:59.999Z"), lead("b", "2026-03-18T00:00:00.000Z")] });
    expect(signal(s, "coaching.idle-leads")).toMatchObject({ count: 1, sample_ids: ["a"] });
    expect(signal(s, "coaching.idle-leads", new Date("2026-04-01T00:00:00.000Z"))).toMatchObject({ count: 2, sample_ids: ["a", "b"] });
    expect(signal(s, "coaching.idle-leads", AT, 15)).toBeUndefined();
    expect(signal(s, "coaching.idle-leads", AT, 1)?.count).toBe(2);
    expect(signal(s, "coaching.idle-leads")?.message).toBe("1 open lead has had no task, call or event for 14 days or more.");
  });

  test("overdue tasks: the samples are the open tasks due first whose time has passed", () => {
    const s = snapshot({ tasks: [{ id: "late", responsible_user_id: "u1", due_at: "2026-03-01T00:00:00.000Z" }, { id: "soon", responsible_user_id: "u1", due_at: "2026-04-01T00:00:00.000Z" }] });
    expect(signal(s, "coaching.overdue-tasks")).toMatchObject({ count: 1, sample_ids: ["late"] });
  });

  test("a low share of connected calls needs at least 10 calls in the period and fewer than 30% connected", () => {
    const calls = (total: number, connected: number) =>
      Array.from({ length: total }, (_, i) => ({ id: `c${i}`, responsible_user_id: "u1", duration_seconds: i < connected ? 30 : 0, created_at: "2026-03-20T10:00:00.000Z" }));
    expect(signal(snapshot({ calls: calls(9, 0) }), "coaching.low-connected-calls")).toBeUndefined();
    expect(signal(snapshot({ calls: calls(10, 3) }), "coaching.low-connected-calls")).toBeUndefined();
    expect(signal(snapshot({ calls: calls(10, 2) }), "coaching.low-connected-calls")).toMatchObject({ count: 8, sample_ids: ["c2", "c3", "c4", "c5", "c6"] });
  });

  test("a signal with nothing to act on is not listed; the listed ones keep the catalog's order", () => {
    const s = snapshot({ leads: [lead("a", "2026-01-01T00:00:00.000Z")], tasks: [{ id: "t", responsible_user_id: "u1", due_at: "2026-01-01T00:00:00.000Z" }] });
    expect(figures(s)[0]!.signals.map((entry) => entry.rule)).toEqual(["coaching.idle-leads", "coaching.overdue-tasks", "coaching.leads-without-open-task"]);
    expect(figures(snapshot({ leads: [lead("a", "2026-03-30T00:00:00.000Z")], tasks: [{ id: "t", lead_id: "a", responsible_user_id: "u1", due_at: "2026-04-30T00:00:00.000Z" }] }))[0]!.signals).toEqual([]);
  });
});

describe("figures of a period", () => {
  test("conversion is won over won and lost, null with neither; the average won deal is rounded to a whole number", () => {
    const won = (id: string, price: number): Doc => ({ id, pipeline_id: "p", stage_id: "won", responsible_user_id: "u1", price, closed_at: "2026-03-10T00:00:00.000Z" });
    const s = snapshot({ leads: [won("a", 100), won("b", 101), { id: "c", pipeline_id: "p", stage_id: "lost", responsible_user_id: "u1", closed_at: "2026-03-10T00:00:00.000Z" }] });
    expect(figures(s)[0]!.leads).toMatchObject({ won: 2, lost: 1, conversion: 2 / 3, revenue_won: 201, average_won_deal: 101 });
    const quiet = figures(s, AT, { from: "2026-03-11", to: "2026-03-31" })[0]!.leads;
    expect(quiet).toMatchObject({ won: 0, lost: 0, conversion: null, revenue_won: 0, average_won_deal: null, median_days_to_won: null });
  });

  test("revenue is exact beyond 2^53 (prices stored as their digits add without rounding); the average rounds half away from zero", () => {
    const big = "9007199254740993"; // 2^53 + 1: a double would read it as 2^53
    const won = (id: string, price: number | string, closed: string): Doc => ({ id, pipeline_id: "p", stage_id: "won", responsible_user_id: "u1", price, closed_at: closed });
    const s = snapshot({ leads: [won("a", big, "2026-03-10T00:00:00.000Z"), won("b", big, "2026-03-11T00:00:00.000Z"), won("c", 1, "2026-03-11T00:00:00.000Z")] });
    const leads = figures(s)[0]!.leads;
    expect(leads.revenue_won).toBe("18014398509481987");
    expect(leads.average_won_deal).toBe(6004799503160662); // within 2^53: a JSON integer
    expect(roundedMean(201n, 2)).toBe(101);
    expect(roundedMean(-201n, 2)).toBe(-101);
    expect(roundedMean(200n, 3)).toBe(67);
    // Within the safe range it is a JSON integer again.
    expect(figures(snapshot({ leads: [won("d", 1500, "2026-03-11T00:00:00.000Z")] }))[0]!.leads.revenue_won).toBe(1500);
  });

  test("rows are ordered by name ignoring case (else id), the unassigned row last", () => {
    const users = [{ id: "u3", name: null }, { id: "u1", name: "bob" }, { id: "u2", name: "Anna" }];
    const s = snapshot({ users, leads: ["u1", "u2", "u3", null].map((user, i) => ({ id: `l${i}`, responsible_user_id: user })) });
    expect(figures(s).map((row) => row.user?.id ?? null)).toEqual(["u2", "u1", "u3", null]);
  });

  test("an empty month list gives zero activity and the row's now-figures", () => {
    const s = snapshot({ leads: [{ id: "a", responsible_user_id: "u1" }] });
    const only = figuresOf(s.rows[0]!.row, [], { from: "2026-03-01", to: "2026-03-31" }, AT, 14);
    expect(only.leads).toMatchObject({ open: 1, created: 0 });
    expect(only.calls).toEqual({ total: 0, inbound: 0, outbound: 0, connected: 0, talk_seconds: 0 });
  });
});
