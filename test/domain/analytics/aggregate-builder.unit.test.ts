import { describe, expect, test } from "vitest";
import { ManagerAggregateBuilder } from "../../../lambdas/domain/analytics/aggregate-builder";
import { MAX_EXACT_DUE_INSTANTS, type ManagerSnapshot } from "../../../lambdas/domain/analytics/manager-aggregates";

const AT = new Date("2026-03-31T12:00:00.000Z");
type Doc = Record<string, unknown>;

/** A snapshot from stored documents, fed in the refresh's order. */
function snapshot(docs: { users?: Doc[]; stages?: Doc[]; leads?: Doc[]; tasks?: Doc[]; calls?: Doc[]; events?: Doc[] }, at = AT): ManagerSnapshot {
  const builder = new ManagerAggregateBuilder(at);
  for (const stage of docs.stages ?? [{ pipeline_id: "p", id: "open", kind: "open" }, { pipeline_id: "p", id: "won", kind: "won" }, { pipeline_id: "p", id: "lost", kind: "lost" }]) builder.addStage(stage);
  for (const user of docs.users ?? [{ id: "u1", name: "Anna", email: "a@x.io", role: null, is_active: true }]) builder.addUser(user);
  for (const task of docs.tasks ?? []) builder.addTask(task);
  for (const call of docs.calls ?? []) builder.addCall(call);
  for (const event of docs.events ?? []) builder.addEvent(event);
  for (const lead of docs.leads ?? []) builder.addLead(lead);
  return builder.build("v");
}
const lead = (id: string, fields: Doc = {}): Doc => ({ id, pipeline_id: "p", stage_id: "open", responsible_user_id: "u1", created_at: "2026-03-01T00:00:00.000Z", is_deleted: false, ...fields });
const rowOf = (s: ManagerSnapshot, user: string | null) => s.rows.find((r) => (r.key.kind === "user" ? r.key.id : null) === user)!.row;
const daysOf = (s: ManagerSnapshot, user: string | null) =>
  Object.assign({}, ...s.months.filter((m) => (m.key.kind === "user" ? m.key.id : null) === user).map((m) => m.days));

describe("which row a record belongs to", () => {
  test("a record belongs to its responsible user's row only when /users has that id; no user or an unknown one is the unassigned row", () => {
    const s = snapshot({ leads: [lead("a"), lead("b", { responsible_user_id: null }), lead("c", { responsible_user_id: "ghost" }), lead("d", { responsible_user_id: "" })] });
    expect(s.rows.map((r) => r.key)).toEqual([{ kind: "user", id: "u1" }, { kind: "unassigned" }]);
    expect(rowOf(s, "u1").owns.leads).toBe(1);
    expect(rowOf(s, null).owns.leads).toBe(3);
    expect(s.ids.find((entry) => entry.key.kind === "unassigned" && entry.collection === "leads")!.ids).toEqual(["b", "c", "d"]);
  });

  test("deleted leads count nowhere: not open, not created, not won, not in the lists", () => {
    const s = snapshot({ leads: [lead("gone", { is_deleted: true, stage_id: "won", closed_at: "2026-03-02T00:00:00.000Z", price: 5 })] });
    expect(s.rows).toEqual([]);
    expect(s.months).toEqual([]);
  });
});

describe("the days things fall on (UTC)", () => {
  test("won and lost by the stage's kind, on the UTC day of closed_at; won without closed_at is in no period but not open either", () => {
    const s = snapshot({
      leads: [
        lead("w1", { stage_id: "won", closed_at: "2026-03-31T23:59:59.999Z", price: 1000 }),
        lead("w2", { stage_id: "won", closed_at: "2026-04-01T00:00:00.000Z", price: 700 }),
        lead("w3", { stage_id: "won", closed_at: null, price: 5 }),
        lead("l1", { stage_id: "lost", closed_at: "2026-03-31T10:00:00+02:00" }),
        lead("u1", { stage_id: "gone-stage" }),
      ],
    });
    const days = daysOf(s, "u1");
    expect(days["2026-03-31"]).toMatchObject({ leads_won: 1, revenue_won: 1000, leads_lost: 1 });
    expect(days["2026-04-01"]).toMatchObject({ leads_won: 1, revenue_won: 700 });
    // The unresolved stage's lead is open; w3 is neither open nor in a period.
    expect(rowOf(s, "u1").leads_open).toBe(1);
  });

  test("days to won are whole days, floored; a lead closed before it was created is left out of the median's histogram", () => {
    const s = snapshot({
      leads: [
        lead("a", { stage_id: "won", created_at: "2026-03-01T00:00:00.000Z", closed_at: "2026-03-31T23:59:59.000Z" }),
        lead("b", { stage_id: "won", created_at: "2026-03-30T23:59:59.000Z", closed_at: "2026-03-31T00:00:00.000Z" }),
        lead("c", { stage_id: "won", created_at: "2026-04-02T00:00:00.000Z", closed_at: "2026-03-31T01:00:00.000Z" }),
      ],
    });
    expect(daysOf(s, "u1")["2026-03-31"].won_days).toEqual({ "30": 1, "0": 1 });
    expect(daysOf(s, "u1")["2026-03-31"].leads_won).toBe(3);
  });

  test("calls on the day of created_at: in or out, connected only when duration > 0, talk time of the connected, at most 5 unconnected samples a day", () => {
    const calls = Array.from({ length: 8 }, (_, i) => ({ id: `c${i}`, lead_id: "a", responsible_user_id: "u1", direction: i === 0 ? "in" : "out", duration_seconds: i < 2 ? 60 : i === 2 ? -5 : 0, created_at: "2026-03-10T10:00:00.000Z" }));
    const s = snapshot({ calls: [...calls, { id: "late", responsible_user_id: "u1", duration_seconds: 1, created_at: null }] });
    expect(daysOf(s, "u1")["2026-03-10"]).toEqual({ calls: 8, calls_in: 1, calls_connected: 2, talk_seconds: 120, unconnected_ids: ["c2", "c3", "c4", "c5", "c6"] });
    expect(rowOf(s, "u1").owns.calls).toBe(9);
  });

  test("a task completed by its due time has completed_at at or before due_at; one without due_at is completed but outside the share", () => {
    const task = (id: string, completed: string, due: string | null): Doc => ({ id, responsible_user_id: "u1", is_completed: true, completed_at: completed, due_at: due });
    const s = snapshot({ tasks: [task("t1", "2026-03-10T10:00:00.000Z", "2026-03-10T10:00:00.000Z"), task("t2", "2026-03-10T10:00:00.001Z", "2026-03-10T10:00:00.000Z"), task("t3", "2026-03-10T11:00:00.000Z", null)] });
    expect(daysOf(s, "u1")["2026-03-10"]).toEqual({ tasks_completed: 3, tasks_completed_with_due: 2, tasks_completed_on_time: 1 });
  });
});

describe("what now-figures keep", () => {
  test("open tasks due before the refresh's previous UTC day are a count; the rest keep their instants, ascending, as differences", () => {
    const open = (id: string, due: string | null): Doc => ({ id, responsible_user_id: "u1", is_completed: false, due_at: due });
    const s = snapshot({ tasks: [open("old", "2026-03-29T23:59:59.999Z"), open("y", "2026-03-30T00:00:00.000Z"), open("z", "2026-04-05T00:00:00.000Z"), open("none", null)] });
    const row = rowOf(s, "u1");
    expect(row.tasks_open).toBe(4);
    expect(row.overdue_before).toEqual({ until: "2026-03-30T00:00:00.000Z", count: 1 });
    const y = Date.parse("2026-03-30T00:00:00.000Z");
    expect(row.due_after).toEqual([y, Date.parse("2026-04-05T00:00:00.000Z") - y]);
    expect(row.overdue_samples.map((sample) => sample.id)).toEqual(["old", "y", "z"]);
  });

  test(`beyond ${MAX_EXACT_DUE_INSTANTS} open tasks due after the cut, the later ones are counted without their instants`, () => {
    const tasks = Array.from({ length: MAX_EXACT_DUE_INSTANTS + 3 }, (_, i) => ({ id: `t${i}`, responsible_user_id: "u1", is_completed: false, due_at: new Date(Date.parse("2026-04-01T00:00:00.000Z") + i * 1000).toISOString() }));
    const row = rowOf(snapshot({ tasks }), "u1");
    expect(row.due_after).toHaveLength(MAX_EXACT_DUE_INSTANTS);
    expect(row.due_after_more).toBe(3);
  });

  test("a lead's last touch is the latest of its created_at (else updated_at), its tasks' updated_at and completed_at, its calls' and its events' created_at", () => {
    const s = snapshot({
      leads: [lead("a", { created_at: "2026-01-01T00:00:00.000Z" }), lead("b", { created_at: null, updated_at: "2026-02-02T00:00:00.000Z" }), lead("c", { created_at: null }), lead("d")],
      tasks: [{ id: "t", lead_id: "a", responsible_user_id: "u1", is_completed: true, updated_at: "2026-01-05T00:00:00.000Z", completed_at: "2026-01-06T00:00:00.000Z" }],
      calls: [{ id: "k", lead_id: "a", responsible_user_id: "u1", created_at: "2026-01-04T00:00:00.000Z", duration_seconds: 0 }],
      events: [{ id: "e", lead_id: "d", created_at: "2026-03-20T00:00:00.000Z" }],
    });
    const row = rowOf(s, "u1");
    expect(row.idle_days).toEqual({ "": 1, "2026-01-06": 1, "2026-02-02": 1, "2026-03-20": 1 });
    // Never touched first, then the longest ago, ties by id.
    expect(row.idle_samples.map((sample) => [sample.id, sample.at])).toEqual([
      ["c", null],
      ["a", "2026-01-06T00:00:00.000Z"],
      ["b", "2026-02-02T00:00:00.000Z"],
      ["d", "2026-03-20T00:00:00.000Z"],
    ]);
  });

  test("open leads without an open task: a completed task does not count, an open one does; at most 5 samples, touched longest ago first", () => {
    const leads = Array.from({ length: 7 }, (_, i) => lead(`l${i}`, { created_at: `2026-03-0${i + 1}T00:00:00.000Z` }));
    const s = snapshot({
      leads,
      tasks: [
        { id: "open", lead_id: "l0", responsible_user_id: "u1", is_completed: false, updated_at: "2026-03-01T00:00:00.000Z" },
        { id: "done", lead_id: "l1", responsible_user_id: "u1", is_completed: true, completed_at: "2026-03-01T00:00:00.000Z" },
      ],
    });
    const row = rowOf(s, "u1");
    expect(row.without_open_task).toBe(6);
    expect(row.without_open_task_samples.map((sample) => sample.id)).toEqual(["l1", "l2", "l3", "l4", "l5"]);
  });
});
