import type { Collection } from "../entities";

/**
 * Every stored record of a collection, in no particular order: what a
 * computation over all of a connection's records reads (the per-manager
 * aggregates), faster than the key-ordered listing because nothing is merged.
 */
export interface RecordScan {
  /**
   * Calls `visit` with the documents a page at a time until the collection is
   * read. `since` (ISO): only records whose newest-first value (updated_at,
   * else created_at) is at or after it; records with neither are left out.
   * `stop`: asked before each page; once true, no further page is read (a
   * caller with a time limit). Returns how many documents were read, and
   * their bytes as stored.
   */
  scan(
    connectionId: string,
    collection: Collection,
    visit: (docs: readonly Readonly<Record<string, unknown>>[]) => void,
    options?: { readonly since?: string; readonly stop?: () => boolean },
  ): Promise<{ readonly records: number; readonly bytes: number }>;
}
