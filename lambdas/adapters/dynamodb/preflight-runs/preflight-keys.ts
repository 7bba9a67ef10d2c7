import { PARTITION_KEY_MAX_BYTES, SORT_KEY_MAX_BYTES, utf8Bytes } from "../table/key-limits";

/**
 * Key layout of the service's conformance runs in the single table (pk S, sk S):
 *
 *   preflight run   pk = PREFLIGHT#<connectionId>   sk = <preflight id>
 *
 * `PREFLIGHT#` starts unlike every other prefix of the table (REC#, PART#, WM#,
 * RUN#, RUNLOCK#, RATE#, CONNECTION), so no partition is shared. The run is
 * stored whole as JSON in `doc`; `expires_at` lets DynamoDB's TTL drop it.
 */
export const PREFLIGHT_ATTR = { pk: "pk", sk: "sk", doc: "doc", expiresAt: "expires_at" } as const;

/** How long a report is kept: long enough to read it back, not for ever. */
export const PREFLIGHT_RETENTION_DAYS = 30;

export function preflightPartitionKey(connectionId: string): string {
  const pk = `PREFLIGHT#${connectionId}`;
  if (connectionId === "" || utf8Bytes(pk) > PARTITION_KEY_MAX_BYTES) throw new TypeError("connection id unusable in a key");
  return pk;
}

export function preflightSortKey(id: string): string {
  if (id === "" || utf8Bytes(id) > SORT_KEY_MAX_BYTES) throw new TypeError("preflight id unusable in a key");
  return id;
}
