import * as v from "valibot";
import { accountSortKeyPrefix } from "../../adapters/dynamodb/connections/connection-keys";
import { SORT_KEY_MAX_BYTES, utf8Bytes } from "../../adapters/dynamodb/table/key-limits";

/**
 * An id taken from a request path (connection id, run id). Each is a DynamoDB
 * sort key, or the end of one, so an id over SORT_KEY_MAX_BYTES UTF-8 bytes
 * names nothing that can exist: the routes answer it 404, exactly like an
 * unknown id, without asking the store (whose key builders refuse it).
 */
export const PathIdSchema = v.pipe(v.string(), v.nonEmpty(), v.maxBytes(SORT_KEY_MAX_BYTES));

/** A run id that could be stored: the run store's sort key is the run id itself. */
export function isStorableRunId(runId: string): boolean {
  return v.is(PathIdSchema, runId);
}

/** A record id (or a stage's pipeline id) that could be stored: a record head's sort key is its id (a stage's, a hash when long). */
export function isStorableRecordId(recordId: string): boolean {
  return v.is(PathIdSchema, recordId);
}

/**
 * A connection id that could be stored for this workspace: its sort key is
 * `<escaped account>#<id>`, so the account's part counts against the same limit.
 */
export function isStorableConnectionId(account: string, connectionId: string): boolean {
  return (
    v.is(PathIdSchema, connectionId) &&
    utf8Bytes(accountSortKeyPrefix(account) + connectionId) <= SORT_KEY_MAX_BYTES
  );
}
