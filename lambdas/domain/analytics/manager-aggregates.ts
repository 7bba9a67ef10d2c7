import * as v from "valibot";
import { WholeAmountSchema } from "../records/fields/price";

/*
 * The per-manager aggregates the analytics routes read (docs/analytics-api.md):
 * computed from the stored records at a run's end, never per request. One
 * schema per stored shape: the types come from them and the store parses every
 * item it reads with them.
 */

const count = v.pipe(v.number(), v.integer(), v.minValue(0));

/** Sample record ids a row keeps per signal (the same number as a run finding's examples). */
export const SIGNAL_SAMPLE_IDS = 5;
/**
 * Open tasks of one manager whose due instant is kept exactly (due on or after
 * the refresh's previous UTC day); beyond it only their count: "overdue now" is
 * exact until `now` passes the last kept instant (docs/analytics-api.md).
 */
export const MAX_EXACT_DUE_INSTANTS = 20_000;

/** One UTC day of one manager: what happened in it. Absent fields are 0 (or empty), so a quiet day costs nothing. */
export const DayActivitySchema = v.object({
  leads_created: v.optional(count),
  leads_won: v.optional(count),
  leads_lost: v.optional(count),
  /** Sum of price of the leads won that day, exact (digits as a string beyond 2^53, as prices are stored). */
  revenue_won: v.optional(WholeAmountSchema),
  /** Leads won that day by whole days from created_at to closed_at ("3": 2 leads); a lead without both dates is not in it. */
  won_days: v.optional(v.record(v.string(), count)),
  tasks_completed: v.optional(count),
  /** Completed that day and had a due_at: the denominator of "completed by their due time". */
  tasks_completed_with_due: v.optional(count),
  tasks_completed_on_time: v.optional(count),
  calls: v.optional(count),
  calls_in: v.optional(count),
  calls_connected: v.optional(count),
  talk_seconds: v.optional(count),
  /** A few calls of the day that did not connect: the samples of the connected-calls signal. */
  unconnected_ids: v.optional(v.pipe(v.array(v.string()), v.maxLength(SIGNAL_SAMPLE_IDS))),
});
export type DayActivity = v.InferOutput<typeof DayActivitySchema>;

/** A month of one manager: day (`YYYY-MM-DD`, UTC) to its activity. */
export const MonthActivitySchema = v.record(v.string(), DayActivitySchema);
export type MonthActivity = v.InferOutput<typeof MonthActivitySchema>;

/** The source user a row belongs to, as /users last said; null for the row of records with no or an unknown user. */
export const RowUserSchema = v.nullable(
  v.object({ id: v.string(), name: v.nullable(v.string()), email: v.nullable(v.string()), role: v.nullable(v.string()), is_active: v.boolean() }),
);
export type RowUser = v.InferOutput<typeof RowUserSchema>;

const sample = v.object({ id: v.string(), at: v.nullable(v.string()) });
const samples = v.pipe(v.array(sample), v.maxLength(SIGNAL_SAMPLE_IDS));
export type Sample = v.InferOutput<typeof sample>;

/** What a manager has right now (at the refresh), and what "now" figures need to be exact at any later instant. */
export const ManagerRowSchema = v.object({
  user: RowUserSchema,
  /** Records the row owns (leads not deleted): what the manager's record lists page through. */
  owns: v.object({ leads: count, tasks: count, calls: count }),
  leads_open: count,
  tasks_open: count,
  /** Open tasks due before `until` (the start of the refresh's previous UTC day): overdue at any later instant. */
  overdue_before: v.object({ until: v.string(), count }),
  /** Due instants (ms) of open tasks due on or after `until`, ascending, as differences from the one before (the first from 0). */
  due_after: v.array(v.number()),
  /** Open tasks due after the last kept instant (beyond MAX_EXACT_DUE_INSTANTS). */
  due_after_more: count,
  /** The open tasks due first (due_at ascending, then id): the overdue signal's samples once their time has passed. */
  overdue_samples: samples,
  /** Open leads by the UTC day of their last touch (`""`: never touched). */
  idle_days: v.record(v.string(), count),
  /** The open leads touched longest ago (touch ascending, never first, then id). */
  idle_samples: samples,
  /** Open leads without an open task, and the ones of them touched longest ago. */
  without_open_task: count,
  without_open_task_samples: samples,
});
export type ManagerRow = v.InferOutput<typeof ManagerRowSchema>;

/** The key of a row: a source user's id, or the one row of records with no or an unknown responsible user. */
export type RowKey = { readonly kind: "user"; readonly id: string } | { readonly kind: "unassigned" };
export const UNASSIGNED: RowKey = { kind: "unassigned" };
export const rowKeyOf = (userId: string | null): RowKey => (userId === null ? UNASSIGNED : { kind: "user", id: userId });

/** Collections a row's records can be listed from. */
export const MANAGER_COLLECTIONS = ["leads", "tasks", "calls"] as const;
export type ManagerCollection = (typeof MANAGER_COLLECTIONS)[number];

/** Everything one refresh computed for a connection. */
export interface ManagerSnapshot {
  /** When it was computed (the refresh's clock), ISO. */
  readonly computedAt: string;
  /** What the stored records were when it was computed (refresh-analytics.ts): a refresh with the same one has nothing to do. */
  readonly signature: string;
  readonly rows: readonly { readonly key: RowKey; readonly row: ManagerRow }[];
  /** One entry per (row, month `YYYY-MM`) with any activity. */
  readonly months: readonly { readonly key: RowKey; readonly month: string; readonly days: MonthActivity }[];
  /** Each row's record ids per collection, in id order. */
  readonly ids: readonly { readonly key: RowKey; readonly collection: ManagerCollection; readonly ids: readonly string[] }[];
}
