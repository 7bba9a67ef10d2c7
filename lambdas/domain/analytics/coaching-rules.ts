/**
 * The coaching signals' own catalog: each rule's id, what it finds and what a
 * manager can do about it. Not the source API's catalog
 * (lambdas/domain/source-contract/rules/catalog.ts): those rules say how a
 * CRM breaks the spec and how its developer fixes it; these say what a
 * salesperson left undone. Deterministic: computed from the stored records, no
 * model is called (docs/analytics-api.md, "Coaching signals").
 */

export { DEFAULT_IDLE_DAYS, MAX_IDLE_DAYS } from "../core/idle-days";
/** Calls in the period a manager needs before their share of connected calls is judged. */
export const LOW_CONNECTED_MIN_CALLS = 10;
/** Below this share of connected calls in the period, the signal is raised. */
export const LOW_CONNECTED_SHARE = 0.3;

export interface CoachingRule {
  readonly id: string;
  /** What a person is told, with the count (and the threshold) filled in. */
  readonly message: (count: number, threshold: number) => string;
  readonly advice: string;
}

const plural = (count: number, one: string, many: string) => `${count} ${count === 1 ? one : many}`;

/** In the order a manager's signals are listed. */
export const COACHING_RULES = {
  idleLeads: {
    id: "coaching.idle-leads",
    message: (count, days) => `${plural(count, "open lead has", "open leads have")} had no task, call or event for ${days} days or more.`,
    advice: "Call or write to each of them, or close the ones that are lost.",
  },
  overdueTasks: {
    id: "coaching.overdue-tasks",
    message: (count) => `${plural(count, "open task is", "open tasks are")} past their due time.`,
    advice: "Complete them, or move their due time to when they will be done.",
  },
  leadsWithoutOpenTask: {
    id: "coaching.leads-without-open-task",
    message: (count) => `${plural(count, "open lead has", "open leads have")} no open task: nothing says what happens next.`,
    advice: "Plan the next step of each as a task with a due time.",
  },
  lowConnectedCalls: {
    id: "coaching.low-connected-calls",
    message: (count, percent) => `${plural(count, "call", "calls")} in the period did not connect: fewer than ${percent}% of the calls connected.`,
    advice: "Call at other times of day, and check the numbers of the leads that never answer.",
  },
} as const satisfies Record<string, CoachingRule>;
