import type { EntityRunStatus, RunStatus } from "./run-summary";

/*
 * A run's lifecycle, and each of its entity rows': every status and the
 * statuses it may move to, in one table each. Pure. The run store's writes
 * check their move atomically in their condition expressions, which are
 * derived from these tables (lambdas/adapters/dynamodb/runs/run-item/
 * status-conditions.ts); domain code that chooses what to move asks here.
 */

/** A run starts running and ends once: the first finish wins, and nothing moves it after. */
export const RUN_TRANSITIONS = {
  running: ["succeeded", "failed", "cancelled"],
  succeeded: [],
  failed: [],
  cancelled: [],
} as const satisfies Record<RunStatus, readonly RunStatus[]>;

/**
 * An entity row starts pending, is started (running), and ends once. A row
 * not reached fails with the run (a refused token, a source that never
 * answers, a run that stops) or is cancelled with it; it never succeeds
 * without having run. A status written again over itself is a replay (a Task
 * retried after its write committed writes the same move again): the row
 * keeps it. Cancelled is never written twice (only rows not ended are cancelled).
 */
export const ENTITY_TRANSITIONS = {
  pending: ["running", "failed", "cancelled"],
  running: ["running", "succeeded", "failed", "cancelled"],
  succeeded: ["succeeded"],
  failed: ["failed"],
  cancelled: [],
} as const satisfies Record<EntityRunStatus, readonly EntityRunStatus[]>;

/** What a new run's summary holds: the run running, every row of its mode pending. */
export const RUN_INITIAL_STATUS = "running" satisfies RunStatus;
export const ENTITY_INITIAL_STATUS = "pending" satisfies EntityRunStatus;

/** A move a table does not allow, named by what moved and between which statuses. */
export class InvalidTransitionError extends Error {
  override readonly name = "InvalidTransitionError";
  constructor(
    readonly subject: "run" | "entity",
    readonly from: string,
    readonly to: string,
  ) {
    super(`a ${subject} cannot move from ${from} to ${to}`);
  }
}

type Table<S extends string> = Readonly<Record<S, readonly S[]>>;

function check<S extends string>(table: Table<S>, subject: "run" | "entity", from: S, to: S): InvalidTransitionError | null {
  return table[from].includes(to) ? null : new InvalidTransitionError(subject, from, to);
}

/** Null when a run may move from `from` to `to`; else the error that says it may not. */
export function checkRunTransition(from: RunStatus, to: RunStatus): InvalidTransitionError | null {
  return check<RunStatus>(RUN_TRANSITIONS, "run", from, to);
}

/** Null when an entity row may move from `from` to `to` (a replay included); else the error that says it may not. */
export function checkEntityTransition(from: EntityRunStatus, to: EntityRunStatus): InvalidTransitionError | null {
  return check<EntityRunStatus>(ENTITY_TRANSITIONS, "entity", from, to);
}

/** The statuses a write of `to` may find: the ones the table lets move there. */
export function statusesMovingTo<S extends string>(table: Table<S>, to: S): S[] {
  return (Object.keys(table) as S[]).filter((from) => table[from].includes(to));
}

/** Whether a row has ended: it moves nowhere but onto itself (a replay). */
export function isEntityEnded(status: EntityRunStatus): boolean {
  return ENTITY_TRANSITIONS[status].every((to) => to === status);
}
