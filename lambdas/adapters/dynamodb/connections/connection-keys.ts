import { SORT_KEY_MAX_BYTES, utf8Bytes } from "../table/key-limits";

/**
 * Key layout of connections in the single table (pk S, sk S).
 * Every key string of the connection store is built here and nowhere else.
 *
 *   connection   pk = CONNECTION   sk = <escaped business_account_id>#<connection_id>
 *
 * - Every connection of every workspace is in one partition, so listAll is a
 *   Query of that partition and listByAccount a Query on the sort key prefix
 *   `<escaped business_account_id>#`.
 * - The account id is escaped (`%` -> `%25`, `#` -> `%23`), so the escaped
 *   form never contains `#` and the first `#` of a sort key always ends the
 *   account part: account `a#b` (sk `a%23b#...`) can never match the prefix
 *   of account `a` (`a#`), and the escape is reversible, so two different
 *   account ids never escape alike. The connection id is kept as is (it is
 *   after the separator and may contain anything).
 * - `CONNECTION` has no `#`, so the partition never meets the record store's
 *   `REC#`, `PART#` and `WM#` partitions or the run store's `RUN#`/`RUNLOCK#`.
 * - The item also keeps `business_account_id` and `id` as plain attributes:
 *   reading never parses the sort key.
 */

export const CONNECTION_PARTITION_KEY = "CONNECTION";

/**
 * When a connection is deleted, its watermarks and run lock get `expires_at`
 * (the table's TTL attribute) this long after the delete. A day is far beyond
 * any run's lease (RUN_LEASE_SECONDS, 15 minutes), so the TTL never frees a
 * lock under a run that still holds it.
 */
export const DELETED_CONNECTION_RETENTION_SECONDS = 86_400;
/** The table's TTL attribute (lib/record-table.ts TTL_ATTRIBUTE). */
export const EXPIRES_AT_ATTR = "expires_at";

/** Attribute names of a connection item (the rest are the Connection's own field names). */
export const CONNECTION_ATTR = {
  pk: "pk",
  sk: "sk",
} as const;

export function escapeAccountId(businessAccountId: string): string {
  return businessAccountId.replaceAll("%", "%25").replaceAll("#", "%23");
}

/** Sort key prefix shared by every connection of one workspace (and by no other workspace's). */
export function accountSortKeyPrefix(businessAccountId: string): string {
  return `${escapeAccountId(requireNonEmpty("businessAccountId", businessAccountId))}#`;
}

export function connectionSortKey(businessAccountId: string, connectionId: string): string {
  const sk = `${accountSortKeyPrefix(businessAccountId)}${requireNonEmpty("connectionId", connectionId)}`;
  if (utf8Bytes(sk) > SORT_KEY_MAX_BYTES) {
    throw new TypeError(`connection sort key over ${SORT_KEY_MAX_BYTES} UTF-8 bytes (account or connection id too long)`);
  }
  return sk;
}

function requireNonEmpty(what: string, value: string): string {
  if (value.length === 0) throw new TypeError(`${what} must not be empty`);
  return value;
}
