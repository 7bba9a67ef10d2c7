import type { CrmData } from "./crm-source";
import type { RawRecord } from "../builders/source-records";

/**
 * The per-manager figures of a CRM's data, worked out here from the source
 * records themselves with plain filters, as a person would count them (issue
 * 35's rules): never by calling the code under test. Timestamps must be UTC
 * (`...Z`), so a record's day is its first ten characters.
 */
export interface Period {
  readonly from: string;
  readonly to: string;
}

const DAY = 86_400_000;
const day = (value: unknown): string | null => (typeof value === "string" ? value.slice(0, 10) : null);
const within = (value: unknown, period: Period) => {
  const d = day(value);
  return d !== null && d >= period.from && d <= period.to;
};
const median = (values: number[]): number | null => {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return (sorted[Math.floor((sorted.length - 1) / 2)]! + sorted[Math.floor(sorted.length / 2)]!) / 2;
};

/** As the API writes a whole amount: a JSON number while it is a safe integer, else its digits. */
const amount = (value: bigint): number | string => (value >= -BigInt(Number.MAX_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value.toString());
/** total / count rounded to the nearest whole, a half away from zero: twice the total plus or minus the count, over twice the count. */
const halfAwayFromZero = (total: bigint, count: bigint): bigint => (total >= 0n ? (2n * total + count) / (2n * count) : -((-2n * total + count) / (2n * count)));

export function expectedFigures(data: CrmData, userId: string | null, period: Period, now: string, idleDays = 14) {
  const users = new Set((data.users ?? []).map((user) => user["id"]));
  const kinds = new Map((data.pipelines ?? []).flatMap((p) => (p["stages"] as RawRecord[]).map((s) => [`${p["id"]}/${s["id"]}`, s["kind"]] as const)));
  const mine = (record: RawRecord) => (users.has(record["responsible_user_id"]) ? record["responsible_user_id"] : null) === userId;
  const leads = (data.leads ?? []).filter((lead) => lead["is_deleted"] !== true && mine(lead));
  const kindOf = (lead: RawRecord) => kinds.get(`${lead["pipeline_id"]}/${lead["stage_id"]}`);
  const won = leads.filter((lead) => kindOf(lead) === "won" && within(lead["closed_at"], period));
  const lost = leads.filter((lead) => kindOf(lead) === "lost" && within(lead["closed_at"], period));
  const open = leads.filter((lead) => kindOf(lead) !== "won" && kindOf(lead) !== "lost");
  // Exact: a price's whole part as written (a numeric string keeps every digit), summed as a BigInt.
  const revenue = won.reduce((sum, lead) => sum + BigInt(String(lead["price"] ?? 0).trim().split(".")[0]!), 0n);
  const tasks = (data.tasks ?? []).filter(mine);
  const openTasks = tasks.filter((task) => task["is_completed"] !== true);
  const overdue = openTasks.filter((task) => typeof task["due_at"] === "string" && Date.parse(task["due_at"] as string) < Date.parse(now));
  const completed = tasks.filter((task) => task["is_completed"] === true && within(task["completed_at"], period));
  const withDue = completed.filter((task) => typeof task["due_at"] === "string");
  const onTime = withDue.filter((task) => Date.parse(task["completed_at"] as string) <= Date.parse(task["due_at"] as string));
  const calls = (data.calls ?? []).filter((call) => mine(call) && within(call["created_at"], period));
  const connected = calls.filter((call) => (call["duration_seconds"] as number) > 0);

  // Signals: a lead's last touch is its creation or its latest task, call or event.
  const touches = (lead: RawRecord): string[] => [
    lead["created_at"] as string,
    ...(data.tasks ?? []).filter((t) => t["lead_id"] === lead["id"]).flatMap((t) => [t["updated_at"], t["completed_at"]]),
    ...(data.calls ?? []).filter((c) => c["lead_id"] === lead["id"]).map((c) => c["created_at"]),
    ...(data.events ?? []).filter((e) => e["lead_id"] === lead["id"]).map((e) => e["created_at"]),
  ].filter((value): value is string => typeof value === "string");
  const lastTouch = (lead: RawRecord) => touches(lead).sort().at(-1)!;
  const today = Date.parse(`${now.slice(0, 10)}T00:00:00Z`);
  const idle = open.filter((lead) => (today - Date.parse(`${lastTouch(lead).slice(0, 10)}T00:00:00Z`)) / DAY >= idleDays);
  const withoutTask = open.filter((lead) => !(data.tasks ?? []).some((t) => t["lead_id"] === lead["id"] && t["is_completed"] !== true));
  const byTouch = (a: RawRecord, b: RawRecord) => lastTouch(a).localeCompare(lastTouch(b)) || String(a["id"]).localeCompare(String(b["id"]));
  const lowConnected = calls.length >= 10 && connected.length / calls.length < 0.3;
  const signals = [
    ...(idle.length > 0 ? [{ rule: "coaching.idle-leads", count: idle.length, sample_ids: [...idle].sort(byTouch).slice(0, 5).map((l) => l["id"]) }] : []),
    ...(overdue.length > 0 ? [{ rule: "coaching.overdue-tasks", count: overdue.length, sample_ids: [...overdue].sort((a, b) => String(a["due_at"]).localeCompare(String(b["due_at"]))).slice(0, 5).map((t) => t["id"]) }] : []),
    ...(withoutTask.length > 0 ? [{ rule: "coaching.leads-without-open-task", count: withoutTask.length, sample_ids: [...withoutTask].sort(byTouch).slice(0, 5).map((l) => l["id"]) }] : []),
    ...(lowConnected ? [{ rule: "coaching.low-connected-calls", count: calls.length - connected.length }] : []),
  ];
  return {
    leads: {
      open: open.length,
      created: leads.filter((lead) => within(lead["created_at"], period)).length,
      won: won.length,
      lost: lost.length,
      conversion: won.length + lost.length === 0 ? null : won.length / (won.length + lost.length),
      revenue_won: amount(revenue),
      average_won_deal: won.length === 0 ? null : amount(halfAwayFromZero(revenue, BigInt(won.length))),
      median_days_to_won: median(won.map((lead) => Math.floor((Date.parse(lead["closed_at"] as string) - Date.parse(lead["created_at"] as string)) / DAY))),
    },
    tasks: { open: openTasks.length, overdue: overdue.length, completed: completed.length, completed_by_due: withDue.length === 0 ? null : onTime.length / withDue.length },
    calls: {
      total: calls.length,
      inbound: calls.filter((call) => call["direction"] === "in").length,
      outbound: calls.filter((call) => call["direction"] !== "in").length,
      connected: connected.length,
      talk_seconds: connected.reduce((sum, call) => sum + (call["duration_seconds"] as number), 0),
    },
    signals,
  };
}

/**
 * A row of the API as the oracle's rows compare: the signals by rule, count and
 * samples, without their words (the low-connected-calls signal by rule and count).
 */
export const comparableRow = <Row extends { signals: { rule: string; count: number; sample_ids: string[] }[] }>(row: Row) => ({
  ...row,
  signals: row.signals.map(({ rule, count, sample_ids }) => (rule === "coaching.low-connected-calls" ? { rule, count } : { rule, count, sample_ids })),
});
