import {
  MAX_EXACT_DUE_INSTANTS,
  SIGNAL_SAMPLE_IDS,
  rowKeyOf,
  type DayActivity,
  type ManagerCollection,
  type ManagerRow,
  type ManagerSnapshot,
  type MonthActivity,
  type RowKey,
  type RowUser,
  type Sample,
} from "./manager-aggregates";
import { DAY_MS, addDays, dayOf, dayStart, instantOf, monthOfDay } from "./utc-days";
import { storedWhole, wholeAmountOf } from "../records/fields/price";

type Doc = Readonly<Record<string, unknown>>;
type Counted = Exclude<keyof DayActivity, "won_days" | "unconnected_ids" | "revenue_won">;

const text = (value: unknown): string | null => (typeof value === "string" && value !== "" ? value : null);
const num = (value: unknown): number => (typeof value === "number" && Number.isFinite(value) ? value : 0);
/** The later of two instants, NaN counting as none. */
const later = (a: number, b: number): number => (Number.isNaN(a) ? b : Number.isNaN(b) ? a : Math.max(a, b));

/** The SIGNAL_SAMPLE_IDS smallest (instant, id) pairs seen; NaN (never) sorts first. */
class FirstSamples {
  private readonly kept: { at: number; id: string }[] = [];
  offer(at: number, id: string): void {
    const entry = { at: Number.isNaN(at) ? -Infinity : at, id };
    const before = (a: { at: number; id: string }, b: { at: number; id: string }) => a.at < b.at || (a.at === b.at && a.id < b.id);
    if (this.kept.length === SIGNAL_SAMPLE_IDS && !before(entry, this.kept[this.kept.length - 1]!)) return;
    const index = this.kept.findIndex((other) => before(entry, other));
    this.kept.splice(index < 0 ? this.kept.length : index, 0, entry);
    if (this.kept.length > SIGNAL_SAMPLE_IDS) this.kept.pop();
  }
  samples(): Sample[] {
    return this.kept.map(({ at, id }) => ({ id, at: at === -Infinity ? null : new Date(at).toISOString() }));
  }
}

interface RowAcc {
  readonly key: RowKey;
  readonly user: RowUser;
  readonly owns: { leads: number; tasks: number; calls: number };
  leadsOpen: number;
  tasksOpen: number;
  overdueBefore: number;
  readonly dueAfter: number[];
  readonly overdueSamples: FirstSamples;
  readonly idleDays: Map<string, number>;
  readonly idleSamples: FirstSamples;
  withoutOpenTask: number;
  readonly withoutOpenTaskSamples: FirstSamples;
  readonly days: Map<string, DayActivity>;
  readonly ids: Record<ManagerCollection, string[]>;
}

/**
 * Computes a connection's per-manager aggregates from its stored records, in
 * one pass over each collection, keeping per lead only what the signals need
 * (its last touch and whether it has an open task). Feed it stages and users
 * first, then tasks, calls and events, then leads (refresh-analytics.ts).
 *
 * Rules (docs/analytics-api.md): a record belongs to the row of its
 * responsible_user_id when /users has that id, else to the unassigned row;
 * deleted leads count nowhere; won and lost come from the kind of the lead's
 * stage and fall on the UTC day of closed_at; created on the day of
 * created_at; tasks completed on the day of completed_at; calls on the day of
 * created_at. A timestamp that is missing puts its record in no period.
 */
export class ManagerAggregateBuilder {
  private readonly kinds = new Map<string, string>();
  private readonly users = new Map<string, RowUser>();
  private readonly rows = new Map<string, RowAcc>();
  private readonly lastTouch = new Map<string, number>();
  private readonly withOpenTask = new Set<string>();
  /** Open tasks due before this instant count as overdue at any later time; later ones keep their instant. */
  private readonly dueCut: number;

  constructor(private readonly computedAt: Date) {
    this.dueCut = dayStart(addDays(dayOf(computedAt.getTime()) ?? "1970-01-01", -1));
  }

  addStage(stage: Doc): void {
    this.kinds.set(JSON.stringify([text(stage["pipeline_id"]), text(stage["id"])]), String(stage["kind"]));
  }

  addUser(user: Doc): void {
    const id = text(user["id"]);
    if (id === null) return;
    this.users.set(id, { id, name: text(user["name"]), email: text(user["email"]), role: text(user["role"]), is_active: user["is_active"] !== false });
  }

  addTask(task: Doc): void {
    const id = String(task["id"]);
    const row = this.rowOf(task);
    row.owns.tasks += 1;
    row.ids.tasks.push(id);
    const due = instantOf(task["due_at"]);
    const leadId = text(task["lead_id"]);
    if (task["is_completed"] === true) {
      const completed = instantOf(task["completed_at"]);
      const day = this.day(row, completed);
      if (day !== null) {
        bump(day, "tasks_completed");
        if (!Number.isNaN(due)) {
          bump(day, "tasks_completed_with_due");
          if (completed <= due) bump(day, "tasks_completed_on_time");
        }
      }
    } else {
      row.tasksOpen += 1;
      if (leadId !== null) this.withOpenTask.add(leadId);
      if (!Number.isNaN(due)) {
        if (due < this.dueCut) row.overdueBefore += 1;
        else row.dueAfter.push(due);
        row.overdueSamples.offer(due, id);
      }
    }
    this.touch(leadId, later(instantOf(task["updated_at"]), instantOf(task["completed_at"])));
  }

  addCall(call: Doc): void {
    const id = String(call["id"]);
    const row = this.rowOf(call);
    row.owns.calls += 1;
    row.ids.calls.push(id);
    const at = instantOf(call["created_at"]);
    const day = this.day(row, at);
    if (day !== null) {
      bump(day, "calls");
      if (call["direction"] === "in") bump(day, "calls_in");
      const seconds = num(call["duration_seconds"]);
      if (seconds > 0) {
        bump(day, "calls_connected");
        bump(day, "talk_seconds", seconds);
      } else if ((day.unconnected_ids ?? []).length < SIGNAL_SAMPLE_IDS) {
        (day as { unconnected_ids?: string[] }).unconnected_ids = [...(day.unconnected_ids ?? []), id];
      }
    }
    this.touch(text(call["lead_id"]), Number.isNaN(at) ? instantOf(call["updated_at"]) : at);
  }

  addEvent(event: Doc): void {
    this.touch(text(event["lead_id"]), instantOf(event["created_at"]));
  }

  addLead(lead: Doc): void {
    if (lead["is_deleted"] === true) return;
    const id = String(lead["id"]);
    const row = this.rowOf(lead);
    row.owns.leads += 1;
    row.ids.leads.push(id);
    const created = instantOf(lead["created_at"]);
    const createdDay = this.day(row, created);
    if (createdDay !== null) bump(createdDay, "leads_created");
    const kind = this.kinds.get(JSON.stringify([text(lead["pipeline_id"]), text(lead["stage_id"])]));
    if (kind === "won" || kind === "lost") {
      const closed = instantOf(lead["closed_at"]);
      const day = this.day(row, closed);
      if (day === null) return;
      if (kind === "lost") return void bump(day, "leads_lost");
      bump(day, "leads_won");
      // Exact: a price beyond 2^53 is stored as its digits, and a sum of them never rounds.
      const revenue = wholeAmountOf(day.revenue_won ?? 0) + wholeAmountOf(lead["price"]);
      (day as { revenue_won?: number | string }).revenue_won = storedWhole(revenue.toString());
      if (!Number.isNaN(created) && closed >= created) {
        const days = String(Math.floor((closed - created) / DAY_MS));
        const wonDays = ((day as { won_days?: Record<string, number> }).won_days ??= {});
        wonDays[days] = (wonDays[days] ?? 0) + 1;
      }
      return;
    }
    // Open: neither won nor lost (a stage that does not resolve included).
    row.leadsOpen += 1;
    const touched = later(Number.isNaN(created) ? instantOf(lead["updated_at"]) : created, this.lastTouch.get(id) ?? Number.NaN);
    const touchDay = Number.isNaN(touched) ? "" : (dayOf(touched) ?? "");
    row.idleDays.set(touchDay, (row.idleDays.get(touchDay) ?? 0) + 1);
    row.idleSamples.offer(touched, id);
    if (!this.withOpenTask.has(id)) {
      row.withoutOpenTask += 1;
      row.withoutOpenTaskSamples.offer(touched, id);
    }
  }

  build(signature: string): ManagerSnapshot {
    const accs = [...this.rows.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, acc]) => acc);
    const months: { key: RowKey; month: string; days: MonthActivity }[] = [];
    for (const acc of accs) {
      const byMonth = new Map<string, Record<string, DayActivity>>();
      for (const day of [...acc.days.keys()].sort()) {
        const month = monthOfDay(day);
        if (!byMonth.has(month)) byMonth.set(month, {});
        byMonth.get(month)![day] = acc.days.get(day)!;
      }
      for (const [month, days] of byMonth) months.push({ key: acc.key, month, days });
    }
    return {
      computedAt: this.computedAt.toISOString(),
      signature,
      rows: accs.map((acc) => ({ key: acc.key, row: rowOf(acc, this.dueCut) })),
      months,
      ids: accs.flatMap((acc) =>
        (["leads", "tasks", "calls"] as const).map((collection) => ({ key: acc.key, collection, ids: [...acc.ids[collection]].sort(byCodeUnits) })),
      ),
    };
  }

  private touch(leadId: string | null, at: number): void {
    if (leadId === null || Number.isNaN(at)) return;
    this.lastTouch.set(leadId, later(this.lastTouch.get(leadId) ?? Number.NaN, at));
  }

  /** The row a record belongs to: its responsible user when /users has it, else the unassigned row. */
  private rowOf(doc: Doc): RowAcc {
    const userId = text(doc["responsible_user_id"]);
    const known = userId !== null && this.users.has(userId) ? userId : null;
    const mapKey = known === null ? "~" : `u:${known}`;
    let acc = this.rows.get(mapKey);
    if (acc === undefined) {
      acc = {
        key: rowKeyOf(known),
        user: known === null ? null : this.users.get(known)!,
        owns: { leads: 0, tasks: 0, calls: 0 },
        leadsOpen: 0,
        tasksOpen: 0,
        overdueBefore: 0,
        dueAfter: [],
        overdueSamples: new FirstSamples(),
        idleDays: new Map(),
        idleSamples: new FirstSamples(),
        withoutOpenTask: 0,
        withoutOpenTaskSamples: new FirstSamples(),
        days: new Map(),
        ids: { leads: [], tasks: [], calls: [] },
      };
      this.rows.set(mapKey, acc);
    }
    return acc;
  }

  /** The row's activity of the UTC day of `at`; null when `at` is none. */
  private day(row: RowAcc, at: number): DayActivity | null {
    const day = Number.isNaN(at) ? null : dayOf(at);
    if (day === null) return null;
    let activity = row.days.get(day);
    if (activity === undefined) row.days.set(day, (activity = {}));
    return activity;
  }
}

const byCodeUnits = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

function bump(day: DayActivity, field: Counted, by = 1): void {
  const counts = day as Record<Counted, number | undefined>;
  counts[field] = (counts[field] ?? 0) + by;
}

function rowOf(acc: RowAcc, dueCut: number): ManagerRow {
  const due = [...acc.dueAfter].sort((a, b) => a - b);
  const kept = due.slice(0, MAX_EXACT_DUE_INSTANTS);
  return {
    user: acc.user,
    owns: { ...acc.owns },
    leads_open: acc.leadsOpen,
    tasks_open: acc.tasksOpen,
    overdue_before: { until: new Date(dueCut).toISOString(), count: acc.overdueBefore },
    due_after: kept.map((at, index) => at - (index === 0 ? 0 : kept[index - 1]!)),
    due_after_more: due.length - kept.length,
    overdue_samples: acc.overdueSamples.samples(),
    idle_days: Object.fromEntries([...acc.idleDays].sort(([a], [b]) => byCodeUnits(a, b))),
    idle_samples: acc.idleSamples.samples(),
    without_open_task: acc.withoutOpenTask,
    without_open_task_samples: acc.withoutOpenTaskSamples.samples(),
  };
}
