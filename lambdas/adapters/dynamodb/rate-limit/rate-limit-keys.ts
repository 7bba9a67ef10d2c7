import { checkedPartitionKey } from "../table/key-limits";

/**
 * Key layout of a connection's rate-limit state in the single table (pk S, sk S):
 *
 *   rate-limit log   pk = RATE#<connectionId>   sk = RATE
 *
 * One item per connection, whatever the base URL: two connections to the same
 * source are throttled independently. `RATE#` differs at its start from the
 * store's prefixes (REC#, PART#, WM#; lambdas/adapters/dynamodb/records/keys.ts), so the item
 * never shares a partition with records, parts or watermarks.
 */

/** Attribute names of the rate-limit item (pk and sk are the table's). */
export const RATE_ATTR = {
  pk: "pk",
  sk: "sk",
  /** List of numbers: start times (epoch ms) of the last admitted requests, oldest first. */
  starts: "starts",
  /** Number, +1 on every write: the optimistic-concurrency token. */
  version: "version",
} as const;

const RATE_LIMIT_PREFIX = "RATE#";
export const RATE_LIMIT_SORT_KEY = "RATE";

export function rateLimitPartitionKey(connectionId: string): string {
  if (connectionId.length === 0) throw new TypeError("connectionId must not be empty");
  return checkedPartitionKey(`${RATE_LIMIT_PREFIX}${connectionId}`);
}

export function rateLimitSortKey(): string {
  return RATE_LIMIT_SORT_KEY;
}
