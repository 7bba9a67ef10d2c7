import type { SyncEntity } from "../core/entities";
import type { PageFingerprint } from "../ingestion/prepare-page";

/** Which run an execution belongs to. */
export interface RunRef {
  readonly business_account_id: string;
  readonly connection_id: string;
  readonly run_id: string;
  /** Which execution of the run: 0 for the first, n for its n-th continuation (names it `<run id>-c<n>`). */
  readonly generation?: number;
}

/** Where the run is: travels in the execution state (and into a continuation), so it stays small. */
export interface SyncCursor {
  readonly entity: SyncEntity;
  /** 1-based page to fetch next. */
  readonly page: number;
  /** ISO-8601 with offset; null for /pipelines and /users. */
  readonly updated_since: string | null;
  /** The entity's committed watermark. */
  readonly watermark: string | null;
  /** The previous page of this entity in this run (repeat and ordering checks). */
  readonly previous: PageFingerprint | null;
  /**
   * The connection's rate_limit as last read. The next page takes its slot at
   * this rate while the connection is read again, so a changed rate applies
   * from the page after (as a rotated token does). Absent in cursors of runs
   * started before it existed: the page then reads the connection first.
   */
  readonly rate_limit?: number;
  /** Consecutive 429s on this page; the state machine gives up after 5 retries. */
  readonly throttle_attempts: number;
  /** Page tasks run by this execution (history bound). */
  readonly steps: number;
}

export type StepOutcome =
  | { readonly outcome: "next_page" }
  | { readonly outcome: "continue_as_new" }
  /** The Express child's segment is over: the parent starts the next one from this cursor. */
  | { readonly outcome: "next_segment" }
  | { readonly outcome: "done" }
  | { readonly outcome: "throttled"; readonly retry_after_seconds: number; readonly detail: string };

/** The execution state between Task states. */
export interface SyncState {
  readonly run: RunRef;
  readonly cursor: SyncCursor | null;
  readonly step: StepOutcome;
}

/** What a Catch hands to the next state: Error is the error's name; Cause its message (AWS: a JSON envelope). */
export interface CaughtError {
  readonly Error: string;
  readonly Cause?: string;
}
