import * as v from "valibot";
import { RowUserSchema, type DayActivity, type ManagerRow, type MonthActivity, type RowKey } from "./manager-aggregates";
import { COACHING_RULES, LOW_CONNECTED_MIN_CALLS, LOW_CONNECTED_SHARE } from "./coaching-rules";
import { PERIOD_TIME_ZONE, type Period } from "./period";
import { addDays, dayOf } from "./utc-days";
import { WholeAmountSchema, storedWhole, wholeAmountOf, type WholeAmount } from "../records/fields/price";

const count = v.pipe(v.number(), v.integer(), v.minValue(0));
const share = v.nullable(v.pipe(v.number(), v.minValue(0), v.maxValue(1)));

export const SignalSchema = v.object({
  /** The rule's id in the coaching catalog (coaching-rules.ts). */
  rule: v.string(),
  count,
  sample_ids: v.pipe(v.array(v.string()), v.readonly()),
  message: v.string(),
  advice: v.string(),
});
export type Signal = v.InferOutput<typeof SignalSchema>;

export const ManagerFiguresSchema = v.object({
  /** The source user; null for the records with no or an unknown responsible user. */
  user: RowUserSchema,
  leads: v.object({
    /** Neither won nor lost, not deleted: now (as of the snapshot). */
    open: count,
    created: count,
    /** Closed in the period in a stage of kind won (lost). */
    won: count,
    lost: count,
    /** won / (won + lost); null when neither. */
    conversion: share,
    /** Exact: a JSON integer within ±(2^53 - 1), else its digits as a string (as prices are stored). */
    revenue_won: WholeAmountSchema,
    /** revenue_won / won, rounded half away from zero to a whole amount; null without a won lead. */
    average_won_deal: v.nullable(WholeAmountSchema),
    /** Median of whole days from created_at to closed_at of the leads won in the period that have both; null when none. */
    median_days_to_won: v.nullable(v.number()),
  }),
  tasks: v.object({
    open: count,
    /** Open, due before now. */
    overdue: count,
    completed: count,
    /** Of the tasks completed in the period that had a due time, the share completed by it; null when none had one. */
    completed_by_due: share,
  }),
  calls: v.object({ total: count, inbound: count, outbound: count, connected: count, talk_seconds: count }),
  /** What to act on, in the catalog's order; only the rules with something to act on. */
  signals: v.pipe(v.array(SignalSchema), v.readonly()),
});
export type ManagerFigures = v.InferOutput<typeof ManagerFiguresSchema>;

export const ManagerFiguresListSchema = v.object({
  connection_id: v.string(),
  period: v.object({ from: v.string(), to: v.string(), time_zone: v.literal(PERIOD_TIME_ZONE) }),
  /** When the figures were computed from the stored records (a run's end); null before the first. */
  computed_at: v.nullable(v.string()),
  /** The connection's idle threshold the idle-leads signal used. */
  idle_days: count,
  rows: v.pipe(v.array(ManagerFiguresSchema), v.readonly()),
});
export type ManagerFiguresList = v.InferOutput<typeof ManagerFiguresListSchema>;

type Totals = Required<Omit<DayActivity, "won_days" | "unconnected_ids" | "revenue_won">>;

/** A row's activity summed over the period's days, with its won-days histogram and unconnected samples (newest day first). */
function periodTotals(months: readonly MonthActivity[], period: Period) {
  const totals: Totals = {
    leads_created: 0, leads_won: 0, leads_lost: 0, tasks_completed: 0, tasks_completed_with_due: 0,
    tasks_completed_on_time: 0, calls: 0, calls_in: 0, calls_connected: 0, talk_seconds: 0,
  };
  const wonDays = new Map<number, number>();
  let revenue = 0n;
  const unconnected: { day: string; ids: readonly string[] }[] = [];
  for (const month of months) {
    for (const [day, activity] of Object.entries(month)) {
      if (day < period.from || day > period.to) continue;
      for (const field of Object.keys(totals) as (keyof Totals)[]) totals[field] += activity[field] ?? 0;
      revenue += wholeAmountOf(activity.revenue_won ?? 0);
      for (const [days, leads] of Object.entries(activity.won_days ?? {})) wonDays.set(Number(days), (wonDays.get(Number(days)) ?? 0) + leads);
      if (activity.unconnected_ids?.length) unconnected.push({ day, ids: activity.unconnected_ids });
    }
  }
  unconnected.sort((a, b) => (a.day < b.day ? 1 : a.day > b.day ? -1 : 0));
  return { totals, revenue, wonDays, unconnectedIds: unconnected.flatMap((entry) => entry.ids) };
}

/** The median of a histogram of whole numbers (value to how many): the middle one, or the mean of the two middle ones. */
export function histogramMedian(histogram: ReadonlyMap<number, number>): number | null {
  const entries = [...histogram].filter(([, n]) => n > 0).sort(([a], [b]) => a - b);
  const total = entries.reduce((sum, [, n]) => sum + n, 0);
  if (total === 0) return null;
  const at = (index: number): number => {
    let seen = 0;
    for (const [value, n] of entries) {
      seen += n;
      if (index < seen) return value;
    }
    return entries[entries.length - 1]![0];
  };
  return (at(Math.floor((total - 1) / 2)) + at(Math.floor(total / 2))) / 2;
}

/** Open tasks due before `now`: every one due before the row's cut, and the kept instants before now. */
export function overdueAt(row: ManagerRow, now: number): number {
  let overdue = row.overdue_before.count;
  let at = 0;
  for (const step of row.due_after) {
    at += step;
    if (at >= now) break;
    overdue += 1;
  }
  return overdue;
}

const ratio = (part: number, whole: number): number | null => (whole === 0 ? null : part / whole);

/** total / count, rounded half away from zero, exactly (a total of prices can pass 2^53). */
export function roundedMean(total: bigint, count: number): WholeAmount {
  const n = BigInt(count);
  const quotient = total / n;
  const remainder = total % n;
  const away = 2n * (remainder < 0n ? -remainder : remainder) >= n ? (total < 0n ? -1n : 1n) : 0n;
  return storedWhole((quotient + away).toString());
}

/** One row's figures for the period, at `now`, with its signals. */
export function figuresOf(row: ManagerRow, months: readonly MonthActivity[], period: Period, now: Date, idleDays: number): ManagerFigures {
  const { totals, revenue, wonDays, unconnectedIds } = periodTotals(months, period);
  const nowMs = now.getTime();
  const overdue = overdueAt(row, nowMs);
  return {
    user: row.user,
    leads: {
      open: row.leads_open,
      created: totals.leads_created,
      won: totals.leads_won,
      lost: totals.leads_lost,
      conversion: ratio(totals.leads_won, totals.leads_won + totals.leads_lost),
      revenue_won: storedWhole(revenue.toString()),
      average_won_deal: totals.leads_won === 0 ? null : roundedMean(revenue, totals.leads_won),
      median_days_to_won: histogramMedian(wonDays),
    },
    tasks: {
      open: row.tasks_open,
      overdue,
      completed: totals.tasks_completed,
      completed_by_due: ratio(totals.tasks_completed_on_time, totals.tasks_completed_with_due),
    },
    calls: {
      total: totals.calls,
      inbound: totals.calls_in,
      outbound: totals.calls - totals.calls_in,
      connected: totals.calls_connected,
      talk_seconds: totals.talk_seconds,
    },
    signals: signalsOf(row, { overdue, nowMs, idleDays, calls: totals.calls, connected: totals.calls_connected, unconnectedIds }),
  };
}

/**
 * The coaching signals of one row (coaching-rules.ts). Idle is counted in
 * whole UTC days: a lead last touched on day D is idle from day D + idleDays on.
 */
function signalsOf(
  row: ManagerRow,
  facts: { overdue: number; nowMs: number; idleDays: number; calls: number; connected: number; unconnectedIds: readonly string[] },
): Signal[] {
  const today = dayOf(facts.nowMs) ?? "9999-12-31";
  const lastIdleDay = addDays(today, -facts.idleDays);
  // "" (never touched) sorts before every day, so it is idle under any threshold.
  const idle = Object.entries(row.idle_days).reduce((sum, [day, n]) => (day <= lastIdleDay ? sum + n : sum), 0);
  const idleSamples = row.idle_samples.filter((s) => s.at === null || (dayOf(Date.parse(s.at)) ?? "") <= lastIdleDay);
  const overdueSamples = row.overdue_samples.filter((s) => s.at !== null && Date.parse(s.at) < facts.nowMs);
  const unconnected = facts.calls - facts.connected;
  const lowConnected = facts.calls >= LOW_CONNECTED_MIN_CALLS && facts.connected / facts.calls < LOW_CONNECTED_SHARE;
  const signal = (rule: { id: string; message: (n: number, t: number) => string; advice: string }, n: number, ids: readonly string[], threshold = 0): Signal[] =>
    n > 0 ? [{ rule: rule.id, count: n, sample_ids: ids.slice(0, 5), message: rule.message(n, threshold), advice: rule.advice }] : [];
  return [
    ...signal(COACHING_RULES.idleLeads, idle, idleSamples.map((s) => s.id), facts.idleDays),
    ...signal(COACHING_RULES.overdueTasks, facts.overdue, overdueSamples.map((s) => s.id)),
    ...signal(COACHING_RULES.leadsWithoutOpenTask, row.without_open_task, row.without_open_task_samples.map((s) => s.id)),
    ...(lowConnected ? signal(COACHING_RULES.lowConnectedCalls, unconnected, facts.unconnectedIds, Math.round(LOW_CONNECTED_SHARE * 100)) : []),
  ];
}

/** The rows' figures in the order people read them: source users by name (then id), the unassigned row last. */
export function figuresOfRows(
  rows: readonly { key: RowKey; row: ManagerRow }[],
  months: readonly { key: RowKey; days: MonthActivity }[],
  period: Period,
  now: Date,
  idleDays: number,
): ManagerFigures[] {
  const keyText = (key: RowKey) => (key.kind === "user" ? `u:${key.id}` : "~");
  const monthsOf = new Map<string, MonthActivity[]>();
  for (const month of months) {
    const list = monthsOf.get(keyText(month.key)) ?? [];
    list.push(month.days);
    monthsOf.set(keyText(month.key), list);
  }
  return [...rows]
    .sort((a, b) => rowOrder(a.row).localeCompare(rowOrder(b.row)) || keyText(a.key).localeCompare(keyText(b.key)))
    .map(({ key, row }) => figuresOf(row, monthsOf.get(keyText(key)) ?? [], period, now, idleDays));
}

/** Users by name, ignoring case (else by id); the unassigned row last. */
const rowOrder = (row: ManagerRow): string => (row.user === null ? "\uffff" : `${(row.user.name ?? row.user.id).toLocaleLowerCase("en")}`);
