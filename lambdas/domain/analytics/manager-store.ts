import type { ManagerCollection, ManagerRow, ManagerSnapshot, MonthActivity, RowKey } from "./manager-aggregates";

/** The snapshot's header: when it was computed and from what. */
export interface SnapshotMeta {
  readonly computedAt: string;
  readonly signature: string;
}

/** An owner's explicit decision about one source user: linked to a member, or unlinked (member null). */
export interface ExplicitLink {
  readonly sourceUserId: string;
  /** The member's `sub`; null: the owner unlinked the source user, and no email links it again. */
  readonly memberId: string | null;
  readonly at: string;
}

export interface RecordIdsPage {
  readonly ids: readonly string[];
  /** Opaque; null on the last page. */
  readonly nextCursor: string | null;
}

/**
 * The per-manager aggregates of each connection (refreshed at a run's end,
 * read by the analytics routes), the owner's links between source users and
 * members, and the workspace's members as their sessions showed them.
 */
export interface ManagerStore {
  /**
   * A fingerprint of the connection's stored records that changes whenever a
   * page wrote any lead, task, call, event, user or stage: a refresh whose
   * fingerprint equals the stored snapshot's has nothing to recompute.
   */
  recordsVersion(connectionId: string): Promise<string>;
  /** The stored snapshot's header; null before the first refresh. */
  getMeta(connectionId: string): Promise<SnapshotMeta | null>;
  /**
   * Makes the stored snapshot equal `snapshot`, writing only the items that
   * differ. A refresh that computed an older snapshot than the stored one
   * changes nothing (each item is written only over an older one).
   */
  saveSnapshot(connectionId: string, snapshot: ManagerSnapshot): Promise<{ readonly written: number; readonly deleted: number }>;
  /** Every row of the snapshot. */
  getRows(connectionId: string): Promise<readonly { readonly key: RowKey; readonly row: ManagerRow }[]>;
  /** The rows' activity of the months from `fromMonth` to `toMonth` (`YYYY-MM`, both included). */
  getMonths(connectionId: string, fromMonth: string, toMonth: string): Promise<readonly { readonly key: RowKey; readonly month: string; readonly days: MonthActivity }[]>;
  /** A page of a row's record ids of one collection, in a stable order. InvalidCursorError for a cursor it did not issue. */
  listIds(connectionId: string, key: RowKey, collection: ManagerCollection, options: { limit: number; cursor: string | null }): Promise<RecordIdsPage>;

  listLinks(connectionId: string): Promise<readonly ExplicitLink[]>;
  /**
   * The owner links `sourceUserId` to `memberId` (a member then has one source
   * user per connection: their earlier link on it goes), or unlinks it
   * (`memberId` null, which sticks), or hands it back to email matching
   * (`"automatic"`). LinkChangedError when the links changed meanwhile.
   */
  setLink(connectionId: string, sourceUserId: string, memberId: string | null | "automatic", at: string): Promise<void>;

  /** Remembers a member's email as their session shows it (each email names the first member seen with it). */
  recordMember(account: string, memberId: string, email: string): Promise<void>;
  /** Normalised email to the member it names, for every member seen in the workspace. */
  membersByEmail(account: string): Promise<ReadonlyMap<string, string>>;
}
