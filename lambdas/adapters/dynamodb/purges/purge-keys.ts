/**
 * Key layout of the purge queue: one item per deleted connection whose data is
 * still to be deleted, all in one small partition read in due order.
 *
 *   pending purge   pk = PURGE   sk = <not before, ISO-8601 UTC>#<connectionId>
 *                   resume_from = the partition key an earlier invocation stopped in (absent at first)
 *
 * The sort key starts with the time from which the purge may run, so "what is
 * due" is one Query with `sk <= <now>#\uffff`.
 */

export const PURGE_PARTITION_KEY = "PURGE";

/**
 * How long a deleted connection's data stays before the purge may delete it:
 * far beyond a page task (100 s), a run's longest wait (Retry-After capped at
 * 300 s) and a lease (15 minutes), so no run of the connection is still writing.
 */
export const DELETED_CONNECTION_PURGE_DELAY_SECONDS = 3_600;

export const PURGE_ATTR = {
  pk: "pk",
  sk: "sk",
  connectionId: "connection_id",
  businessAccountId: "business_account_id",
  deletedAt: "deleted_at",
  resumeFrom: "resume_from",
} as const;

export function purgeSortKey(notBefore: Date, connectionId: string): string {
  return `${notBefore.toISOString()}#${connectionId}`;
}

/** The highest sort key due at `now`: every purge whose not-before time is at or before it. */
export function duePurgeSortKeyBound(now: Date): string {
  return `${now.toISOString()}#\uffff`;
}
