/** A deleted connection whose data is still to be deleted (written by the connection store's delete). */
export interface PendingPurge {
  readonly connectionId: string;
  readonly businessAccountId: string;
  /** ISO-8601: when the connection was deleted. */
  readonly deletedAt: string;
  /** ISO-8601: the purge may run from this time on. */
  readonly notBefore: string;
  /** Where an earlier invocation stopped (the adapter's partition key, opaque here); absent until one has. */
  readonly resumeFrom?: string;
}

/** What deleting some of a connection's data did. */
export interface PurgeStep {
  readonly deleted: number;
  /** True when nothing of the connection is left (the pending purge itself is still there: see `complete`). */
  readonly done: boolean;
  /** Not done: where the next call goes on (see `remember`). */
  readonly resumeFrom?: string;
}

/** The port the purge job works through; the DynamoDB adapter is lambdas/adapters/dynamodb/purges/dynamodb-purge-queue.ts. */
export interface PurgeQueue {
  /** Pending purges whose not-before time is at or before `now`, oldest first, at most `limit`. */
  due(now: Date, limit: number): Promise<PendingPurge[]>;
  /**
   * Deletes up to `maxItems` more items of the connection's data (records and
   * their parts, stages, loss reasons, watermarks, stage transitions, change items, run summaries and lock,
   * rate-limit log, preflight reports). Resumable: it starts at the purge's `resumeFrom`, and a walk that started
   * there, past the start, ends with one more from the start; it is done only when a walk from the start found
   * nothing left. A record's parts go before its head.
   */
  purgeSome(purge: PendingPurge, maxItems: number): Promise<PurgeStep>;
  /** Keeps where an unfinished purge stopped, for the next invocation (nothing when the purge is no longer pending). */
  remember(purge: PendingPurge, resumeFrom: string): Promise<void>;
  /** Removes the pending purge (its data is gone, or the connection exists after all). */
  complete(purge: PendingPurge): Promise<void>;
}
