import * as v from "valibot";

/** Who holds a connection's run lock; the run store parses the lock item with it. */
export const RunLockSchema = v.object({
  runId: v.string(),
  /** Null until the execution has been started, and while the run hands over to a fresh execution. */
  executionRef: v.optional(v.nullable(v.string()), null),
  /**
   * ISO-8601. Governs only while executionRef is null: a run whose execution
   * is known is dead exactly when that execution has ended.
   */
  leaseUntil: v.string(),
});
export type RunLock = v.InferOutput<typeof RunLockSchema>;

/**
 * What the lock alone says of its run. A run whose execution is known is dead
 * exactly when that execution has ended (a long wait is not death), which only
 * the execution's engine can say: `ask_execution`. While no execution is known
 * (a starter between begin and start, or a run handing over to a fresh
 * execution) the lease decides: live until it has passed. `earlierExecutionsGone`:
 * the caller knows no execution of an earlier process survives, so such a run
 * is dead at once. A lease that does not parse never passes (a damaged lock is
 * never taken for dead).
 */
export type RunLiveness = "live" | "dead" | "ask_execution";

export function runLiveness(lock: RunLock, now: Date, options: { readonly earlierExecutionsGone?: boolean } = {}): RunLiveness {
  if (lock.executionRef !== null) return "ask_execution";
  if (options.earlierExecutionsGone === true) return "dead";
  return Date.parse(lock.leaseUntil) <= now.getTime() ? "dead" : "live";
}
