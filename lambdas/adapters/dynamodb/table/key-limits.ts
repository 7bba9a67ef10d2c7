/**
 * DynamoDB's limits on key values, named once for every key layout in the
 * single table (records, runs, connections, rate limits, preflight runs).
 */

/** DynamoDB's limit on a sort key value, in UTF-8 bytes. */
export const SORT_KEY_MAX_BYTES = 1024;
/** DynamoDB's limit on a partition key value, in UTF-8 bytes. */
export const PARTITION_KEY_MAX_BYTES = 2048;

export function utf8Bytes(text: string): number {
  return Buffer.byteLength(text, "utf8");
}

/** A partition key built from a connection id: throws when the id makes it too long for DynamoDB. */
export function checkedPartitionKey(pk: string): string {
  if (utf8Bytes(pk) > PARTITION_KEY_MAX_BYTES) {
    throw new TypeError(`partition key over ${PARTITION_KEY_MAX_BYTES} UTF-8 bytes (connection id too long)`);
  }
  return pk;
}
