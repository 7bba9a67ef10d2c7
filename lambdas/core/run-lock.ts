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
