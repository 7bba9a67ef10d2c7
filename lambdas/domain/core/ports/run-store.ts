import type { SummaryEntity } from "../entities";
import type { RunLock } from "../run-lock";
import type { AuditSummary } from "../audit-summary";
import type { EntityFailure, RunSummary, RunWait } from "../run-summary";

export interface NewRun {
  readonly connectionId: string;
  readonly runId: string;
  readonly startedAt: string;
  readonly leaseUntil: string;
}

export type BeginResult = { readonly started: true } | { readonly started: false; readonly holder: RunLock };

/** How an entity's row ends: succeeded, failed with why (its `error` is the failure's detail), or cancelled by the owner. */
export type EntityOutcome =
  | { readonly status: "succeeded" }
  | { readonly status: "failed"; readonly failure: EntityFailure }
  | { readonly status: "cancelled" };

/** How a run ends: the first finish wins. */
export interface RunEnd {
  readonly status: "succeeded" | "failed" | "cancelled";
  readonly finishedAt: string;
}

/** Entities whose rows end (with one outcome) and entities whose rows start, in one write of a run summary. */
export interface EntitiesMove {
  readonly finished: readonly SummaryEntity[];
  readonly outcome: EntityOutcome;
  readonly started: readonly SummaryEntity[];
}

/** Run summaries and the one-run-per-connection lock. */
export interface RunStore {
  /**
   * Atomically takes the connection's run lock and creates the run summary
   * (status running, every entity pending). When the lock is held by another
   * run, nothing is written and the holder is returned, unless `replacing`
   * names that holder's run id (a run known to be dead), which is then replaced.
   */
  begin(run: NewRun, options?: { readonly replacing?: string }): Promise<BeginResult>;
  /** Records the run's execution on its lock, and extends the lease in the same write when given one. */
  setExecution(connectionId: string, runId: string, executionRef: string, leaseUntil?: string): Promise<void>;
  /** Extends the lease while the run makes progress; a no-op when runId no longer holds the lock. */
  heartbeat(connectionId: string, runId: string, leaseUntil: string): Promise<void>;
  /**
   * The run is about to continue in a fresh execution: the lock forgets the
   * current execution (so its end does not read as the run's death) and its
   * lease governs until the next execution records itself. A no-op when runId
   * no longer holds the lock.
   */
  handOver(connectionId: string, runId: string, leaseUntil: string): Promise<void>;
  get(connectionId: string, runId: string): Promise<RunSummary | null>;
  /** Who holds the connection's run lock now; null when no run does. */
  lock(connectionId: string): Promise<RunLock | null>;
  /**
   * The run locks held now among these connections (eventually consistent: a
   * count, never a claim, is made from them), in no set order; a lock item
   * that does not parse is counted in `damaged`, not thrown.
   */
  heldLocks(connectionIds: readonly string[]): Promise<{ readonly locks: readonly RunLock[]; readonly damaged: number }>;
  /** Sync runs, newest first (audits are listed by listAudits). */
  list(connectionId: string, options?: { readonly limit?: number }): Promise<RunSummary[]>;
  /** An audit's summary with its heal counts (core/run-mode.ts: an audit is a run whose id says so); null when none. */
  getAudit(connectionId: string, auditId: string): Promise<AuditSummary | null>;
  /** Audits, newest first. */
  listAudits(connectionId: string, options?: { readonly limit?: number }): Promise<AuditSummary[]>;
  /** An audit read the whole of an entity: what the store holds of it, and what the source no longer returns. No-op once finished. */
  auditEntityClosed(
    connectionId: string,
    auditId: string,
    entity: SummaryEntity,
    closed: { readonly storedRecords: number; readonly absentIds: readonly string[] },
  ): Promise<void>;
  /** Like entityFinished and finish: a no-op once the run has finished (a superseded run cannot rewrite it). */
  entityStarted(connectionId: string, runId: string, entity: SummaryEntity): Promise<void>;
  /** Appends a wait to the entity's list; a no-op once the run has finished or the list holds MAX_RECORDED_WAITS. */
  entityWaited(connectionId: string, runId: string, entity: SummaryEntity, wait: RunWait): Promise<void>;
  entityFinished(connectionId: string, runId: string, entity: SummaryEntity, outcome: EntityOutcome): Promise<void>;
  /**
   * entityFinished of one entity's rows and entityStarted of the next one's,
   * in one write of the summary (an idle run moves through 7 entities): both
   * happen, or neither. Either list may be empty.
   */
  entitiesMoved(connectionId: string, runId: string, move: EntitiesMove): Promise<void>;
  /**
   * Sets the final status and finished_at, and releases the lock if this run
   * still holds it. The first finish wins: a later one changes nothing.
   */
  finish(connectionId: string, runId: string, outcome: RunEnd): Promise<void>;
}
