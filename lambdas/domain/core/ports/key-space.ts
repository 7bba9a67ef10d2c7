/**
 * Which ids taken from a request path the store could hold at all. Each id is a key, or the end of one, with a
 * size limit; an id over it names nothing that can exist, so the routes answer 404, exactly like an unknown
 * id, without asking the store (whose key builders refuse it).
 */
export interface KeySpace {
  /** A run id, audit id, preflight id, record id or pipeline id: each is a sort key on its own. */
  isStorableId(id: string): boolean;
  /** A connection id of this workspace: its key holds the workspace too, which counts against the same limit. */
  isStorableConnectionId(account: string, connectionId: string): boolean;
}
