import type { KeySpace } from "../../domain/core/ports/key-space";
import { accountSortKeyPrefix } from "./connections/connection-keys";
import { SORT_KEY_MAX_BYTES, utf8Bytes } from "./table/key-limits";

/** A non-empty id of at most SORT_KEY_MAX_BYTES UTF-8 bytes: the run store's sort key is the run id itself, a record head's its id. */
function isStorableId(id: string): boolean {
  return id.length > 0 && utf8Bytes(id) <= SORT_KEY_MAX_BYTES;
}

/** The single table's key space: a connection's sort key is `<escaped account>#<id>` (./connections/connection-keys.ts). */
export const dynamoDbKeySpace: KeySpace = {
  isStorableId,
  isStorableConnectionId: (account, connectionId) =>
    isStorableId(connectionId) && utf8Bytes(accountSortKeyPrefix(account) + connectionId) <= SORT_KEY_MAX_BYTES,
};
