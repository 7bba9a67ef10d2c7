import type { StoredConnection } from "./connection";
import type { Collection, StageKind, SummaryEntity, SyncEntity } from "./entities";
import type { MetricDimensions, MetricName } from "./metric-names";
import type { RunLock } from "./run-lock";
import type { RunSummary, RunWait } from "./run-summary";

/**
 * The domain's ports. Adapters (DynamoDB, KMS, SFN, HTTP) and their local
 * twins implement them; domain code never imports an AWS SDK.
 */

/** Where and as whom the source is called. The token is plaintext only inside the page task. */
export interface SourceConnection {
  readonly baseUrl: string;
  readonly token: string;
}

export interface SourcePageRequest {
  /** Endpoint path, e.g. `/leads`. */
  readonly path: string;
  /** 1-based page number. */
  readonly page: number;
  /** ISO-8601 with offset; absent for /pipelines and /users. */
  readonly updatedSince?: string;
}

/** One parsed envelope. `data` is still unvalidated source JSON. */
export interface SourcePage {
  readonly data: readonly unknown[];
  readonly hasMore: boolean;
}

export interface SourceClient {
  /** Throws the Source*Error of lambdas/core/errors.ts for every non-200 outcome. */
  fetchPage(connection: SourceConnection, request: SourcePageRequest): Promise<SourcePage>;
}

/** A canonical record ready to store: where it goes, its key, its JSON document. */
export interface RecordWrite {
  readonly collection: Collection;
  /** `[id]`, or `[pipelineId, stageId]` for stages. */
  readonly key: readonly [string] | readonly [string, string];
  readonly doc: Readonly<Record<string, unknown>>;
}

export interface WatermarkWrite {
  readonly entity: SyncEntity;
  /** ISO-8601 UTC (`toISOString()` form), so that string order is time order. */
  readonly value: string;
}

/**
 * The run a page belongs to, and what the page adds to the run summary.
 * Every transaction of the page checks that this run still holds the
 * connection's lock; the last one also extends its lease and records the
 * progress, once per page number, so a replayed page is never counted twice.
 */
export interface PageRun {
  readonly runId: string;
  readonly entity: SyncEntity;
  /** 1-based page number within this run: progress is recorded only when it is above the last one counted. */
  readonly page: number;
  readonly records: number;
  /** Stages of a /pipelines page (counted on the stages row). */
  readonly stages: number;
  readonly unresolvedWonLost: number;
  /** The lock's new lease (ISO-8601). */
  readonly leaseUntil: string;
}

/** Everything one validated page writes. */
export interface PageWrite {
  readonly connectionId: string;
  /** In write order: loss reasons come before the leads that point at them. */
  readonly records: readonly RecordWrite[];
  /** Written with the page's last records, never before them; absent when the page does not move it. */
  readonly watermark?: WatermarkWrite;
  readonly run: PageRun;
  /**
   * Where the page sits in its entity's listing. Page 1 without a next page is
   * the whole listing (at that updated_since): the store may recognise it as
   * the one it last committed and skip rewriting its records. Absent: always written.
   */
  readonly listing?: PageListing;
}

export interface PageListing {
  readonly hasMore: boolean;
  /** The updated_since the page was fetched with; null for the full lists (/pipelines, /users). */
  readonly updatedSince: string | null;
}

/** pipeline id -> stage id -> kind, for the stages synced so far. */
export type StageKinds = ReadonlyMap<string, ReadonlyMap<string, StageKind>>;

export interface RecordPage {
  readonly records: readonly Record<string, unknown>[];
  /** Opaque; null on the last page. */
  readonly nextCursor: string | null;
}

export interface RecordStore {
  getWatermark(connectionId: string, entity: SyncEntity): Promise<string | null>;
  /**
   * Forgets every watermark of the connection: the next run reads each entity
   * from sync_since. A run under way is fenced off first, so it cannot write a
   * watermark back: its next page fails with SyncSinceChangedError.
   */
  resetWatermarks(connectionId: string): Promise<void>;
  /**
   * Forgets one entity's watermark, with the same fence as resetWatermarks:
   * a run under way cannot write it back (its next page fails with
   * SyncSinceChangedError and writes nothing).
   */
  resetWatermark(connectionId: string, entity: SyncEntity): Promise<void>;
  getStageKinds(connectionId: string): Promise<StageKinds>;
  /**
   * Upserts the page's records and then its watermark, with the run's progress
   * and lease. Safe to replay: every write is an idempotent put, the progress
   * is counted once per page, and the watermark is never ahead of the records.
   * Throws RunSupersededError when the run no longer holds the connection's
   * lock, SyncSinceChangedError when the watermarks were reset under the run;
   * in both cases the page wrote nothing.
   */
  commitPage(write: PageWrite): Promise<void>;
  listRecords(
    connectionId: string,
    collection: Collection,
    /** order: `key` (default, the store's key order) or `newest` (by updated_at, else created_at, newest first). */
    options: { limit: number; cursor?: string | null; order?: RecordOrder },
  ): Promise<RecordPage>;
}

export type RecordOrder = "key" | "newest";

export interface Clock {
  now(): Date;
}

/** Structured log lines (one JSON object each). Never pass the source token. */
export interface Logger {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

/** Counters (EMF in AWS, counted in memory locally). Dimensions stay low-cardinality: ids go in log keys. */
export interface Metrics {
  count(name: MetricName, value: number, dimensions?: MetricDimensions): void;
}

/* ----- Connections (owned by the onboarding API, read by the sync) ----- */

// A connection as the onboarding API returns it (never the token), and as stored (with the token's ciphertext).
export type { Connection, StoredConnection } from "./connection";

/** "strong": sees every write acknowledged before the read. "eventual": may not yet see a recent write, for a short time. */
export type ReadConsistency = "strong" | "eventual";

export interface ConnectionStore {
  /** Creates or replaces. */
  put(connection: StoredConnection): Promise<void>;
  /**
   * Tenant-scoped: another workspace's id is null, exactly like an unknown id.
   * Strongly consistent unless the caller asks for "eventual" (half the cost, but it may miss a recent write:
   * only the page task does, with its own fallbacks, lambdas/sync/page-connection.ts).
   */
  get(businessAccountId: string, connectionId: string, options?: { readonly consistency?: ReadConsistency }): Promise<StoredConnection | null>;
  listByAccount(businessAccountId: string): Promise<StoredConnection[]>;
  /** Every connection of every workspace: the scheduled dispatcher's list. */
  listAll(): Promise<StoredConnection[]>;
  /** listAll one page at a time (the schedule tick's Map takes a page per step); `cursor` is opaque, null on the last page. */
  listAllPage(options: { readonly limit: number; readonly cursor: string | null }): Promise<{ readonly connections: StoredConnection[]; readonly cursor: string | null }>;
  delete(businessAccountId: string, connectionId: string): Promise<void>;
}

/** Binds a ciphertext to its workspace and connection: copied to another connection, it does not decrypt. */
export interface TokenContext {
  readonly businessAccountId: string;
  readonly connectionId: string;
}

export interface TokenCipher {
  encrypt(plaintext: string, context: TokenContext): Promise<string>;
  decrypt(ciphertext: string, context: TokenContext): Promise<string>;
}

/* ----- Rate limit (per connection, across every caller of its source) ----- */

export interface RateLimiter {
  /**
   * Resolves when one more request to the connection's source may start, so
   * that no one-second window ever holds more than `requestsPerSecond` starts.
   * Resolves to the start recorded for it (epoch ms): a request sent much later
   * than that must take a fresh slot.
   *
   * `leadMs`: reserve the slot that far ahead (its start is now + leadMs, or
   * the first free start after that): the request must not be sent before it.
   * The sync reserves the next page's slot while the current page commits.
   * `replacing`: the start of this caller's own slot that went stale unused;
   * the new slot takes its place in the window instead of adding to it.
   */
  acquire(
    connectionId: string,
    requestsPerSecond: number,
    options?: { readonly leadMs?: number; readonly replacing?: number },
  ): Promise<number>;
}

/* ----- Sync runs ----- */

// The run summary, its entity rows and their waits: types from the schemas of ./run-summary.ts.
export type { EntityProgress, EntityRunStatus, RunStatus, RunSummary, RunWait } from "./run-summary";

/** Starts state machine executions (Step Functions in AWS, aws-local-stepfunctions locally). */
export interface RunStarter {
  /** Returns an opaque execution reference (the execution ARN in AWS). */
  start(input: SyncExecutionInput): Promise<string>;
  /** False once the execution has ended in any way (succeeded, failed, aborted, timed out) or is unknown. */
  isRunning(executionRef: string): Promise<boolean>;
  /**
   * Ends the execution (StopExecution in AWS; the local engine's abort).
   * Named `abort`, not `stop`: the local engine's `stop()` shuts the whole engine down.
   */
  abort(executionRef: string): Promise<void>;
}

/** The state machine's input. Small: cursors, never pages. */
export interface SyncExecutionInput {
  readonly business_account_id: string;
  readonly connection_id: string;
  readonly run_id: string;
  /** Set when an execution continues a run in a fresh execution (history bound). */
  readonly continuation?: unknown;
  /** The continuation's number (1, 2, ...): its execution is named `<run id>-c<generation>`. */
  readonly generation?: number;
}

/** Who holds a connection's run lock: the type of ./run-lock.ts's schema. */
export type { RunLock } from "./run-lock";

export interface NewRun {
  readonly connectionId: string;
  readonly runId: string;
  readonly startedAt: string;
  readonly leaseUntil: string;
}

export type BeginResult = { readonly started: true } | { readonly started: false; readonly holder: RunLock };

/** Run summaries and the one-run-per-connection lock. */
/** Entities whose rows end (with one outcome) and entities whose rows start, in one write of a run summary. */
export interface EntitiesMove {
  readonly finished: readonly SummaryEntity[];
  readonly outcome: { readonly status: "succeeded" | "failed"; readonly error: string | null };
  readonly started: readonly SummaryEntity[];
}

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
  /** Newest first. */
  list(connectionId: string, options?: { readonly limit?: number }): Promise<RunSummary[]>;
  /** Like entityFinished and finish: a no-op once the run has finished (a superseded run cannot rewrite it). */
  entityStarted(connectionId: string, runId: string, entity: SummaryEntity): Promise<void>;
  /** Appends a wait to the entity's list; a no-op once the run has finished or the list holds MAX_RECORDED_WAITS. */
  entityWaited(connectionId: string, runId: string, entity: SummaryEntity, wait: RunWait): Promise<void>;
  entityFinished(
    connectionId: string,
    runId: string,
    entity: SummaryEntity,
    outcome: { readonly status: "succeeded" | "failed"; readonly error: string | null },
  ): Promise<void>;
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
  finish(connectionId: string, runId: string, outcome: { readonly status: "succeeded" | "failed"; readonly finishedAt: string }): Promise<void>;
}
