import type { ChangeCommit } from "../change-feed";

/** A page of the change feed, as the store reads it. */
export interface ChangeCommitPage {
  /** Whole commits, or the first commit cut where `limit` was reached. */
  readonly entries: readonly (ChangeCommit["entries"][number] & { readonly runId: string; readonly committedAt: string })[];
  /** Opaque: where the next read starts; never null (later commits come after it). */
  readonly nextCursor: string;
}

/** The change feed the page transactions write (lambdas/adapters/dynamodb/records/page-history.ts). */
export interface ChangeStore {
  /**
   * Up to `limit` changes after `cursor` (null: from the oldest kept), in
   * commit order, only of commits not past their retention at `now`.
   * InvalidCursorError for a cursor this store did not issue;
   * ChangesExpiredError for one older than the retention.
   */
  listChanges(connectionId: string, options: { readonly cursor: string | null; readonly limit: number; readonly now: Date }): Promise<ChangeCommitPage>;
  /**
   * The cursors around one run's (or audit's) commits: `from` reads them first, `to` reads what was committed after
   * them. Null when the run committed nothing the feed keeps.
   */
  runRange(connectionId: string, runId: string): Promise<{ readonly from: string; readonly to: string } | null>;
}
