import type { Collection, StageKind, SyncEntity } from "../entities";
import type { RecordWithLineage } from "../record-lineage";
import type { Freshness } from "../freshness";
import type { Severity } from "../severity";
import type { LeadStages } from "../lead-history";

/** A canonical record ready to store: where it goes, its key, its JSON document. */
export interface RecordWrite {
  readonly collection: Collection;
  /** `[id]`, or `[pipelineId, stageId]` for stages. */
  readonly key: readonly [string] | readonly [string, string];
  readonly doc: Readonly<Record<string, unknown>>;
  /** What the write adds to the record's lineage beyond its page (absent: no timestamp, no findings). */
  readonly lineage?: WriteLineage;
  /**
   * An audit's write: why it heals the record (its audit id also goes to the
   * lineage's healed_by_audit), and its guard: the write applies only while the
   * stored version is not newer than this one (its newest-first value), so an
   * audit never overwrites a newer stored version.
   */
  readonly heal?: HealMark;
}

/** Per record facts of a write that its lineage keeps (core/record-lineage.ts). */
export interface WriteLineage {
  /** The record's watermark timestamp as stored (updated_at; created_at for events), null when missing or unparseable. */
  readonly sourceUpdatedAt: string | null;
  /** Rule ids of the silent rules the record hit. */
  readonly findings: readonly string[];
}

export interface WatermarkWrite {
  readonly entity: SyncEntity;
  /** ISO-8601 UTC (`toISOString()` form), so that string order is time order. */
  readonly value: string;
}

/** What one page adds to a run finding: its records that hit the rule. */
export interface PageFinding {
  readonly rule: string;
  readonly severity: Severity;
  /** Distinct records of the page that hit it. */
  readonly count: number;
  /** Ids to append to the run's examples (the page task keeps the run's total at FINDING_SAMPLE_IDS). */
  readonly sampleIds: readonly string[];
  /** The first record's detail; kept only when the run has none for the rule yet. */
  readonly detail: string;
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
  /** An audit's page: what it healed, counted with the page (so exactly once). Absent for a sync's page. */
  readonly audit?: PageAudit;
  /** The silent rules the page's records hit, counted with the page (so exactly once). Absent: none. */
  readonly findings?: readonly PageFinding[];
  /** The lock's new lease (ISO-8601). */
  readonly leaseUntil: string;
  /** When the page commits (ISO-8601, the page task's clock): its records' lineage and its entity's data_as_of. */
  readonly committedAt: string;
}

/** What one page of an audit adds to its entity's row. */
export interface PageAudit {
  readonly healed: { readonly missed: number; readonly stale: number; readonly changed_without_advancing: number };
  /** Records past the entity's watermark the store does not hold as the source has them: left to the next sync. */
  readonly ahead: number;
  /** Ids of healed records to append to the row's examples (the summary shows the first AUDIT_SAMPLE_IDS). */
  readonly sampleIds: readonly string[];
}

/**
 * Why an audit wrote a record, kept on the record's item: the explain
 * endpoint reads it (the cause, and the record's updated_at against the
 * entity's watermark when the audit found it).
 */
export interface HealMark {
  readonly auditId: string;
  readonly cause: "missed" | "stale" | "changed_without_advancing";
  /** The record's compared timestamp as the source sent it (null: none that parses). */
  readonly updatedAt: string | null;
  /** The entity's committed watermark when the audit read the page. */
  readonly watermark: string | null;
  readonly at: string;
}

/** Everything one validated page writes. */
export interface PageWrite {
  readonly connectionId: string;
  /** In write order: loss reasons come before the leads that point at them. */
  readonly records: readonly RecordWrite[];
  /** Written with the page's last records, never before them; absent when the page does not move it. */
  readonly watermark?: WatermarkWrite;
  /**
   * The entity's last page in this run (has_more false): the entity finished
   * the run with every page committed, so this commit sets its data_as_of.
   * Absent or false: a page with more to come leaves data_as_of as it is.
   */
  readonly lastPage?: boolean;
  readonly run: PageRun;
  /**
   * Where the page sits in its entity's listing. Page 1 without a next page is
   * the whole listing (at that updated_since): the store may recognise it as
   * the one it last committed and skip rewriting its records. Absent: always written.
   */
  readonly listing?: PageListing;
  /** The connection's setting naming the /events type that records stage moves (core/stage-event-type.ts); absent or null: the default detection. */
  readonly stageEventType?: string | null;
  /**
   * The stored stage of the page's leads, read by readLeadStages while the page
   * was validated (off the commit's critical path). Used when it holds every
   * lead of the page; else the commit reads them itself.
   */
  readonly leadStages?: LeadStages;
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

export type RecordOrder = "key" | "newest";

/** The canonical records and their per-entity watermarks. */
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
  /** Each synced entity's data_as_of (its last committed page) and watermark; null where none is stored. */
  getFreshness(connectionId: string): Promise<Freshness>;
  /** Ids of every user stored for the connection (what /users returned over its runs). */
  getUserIds(connectionId: string): Promise<ReadonlySet<string>>;
  /**
   * Upserts the page's records and then its watermark, with the run's progress
   * and lease. Safe to replay: every write is an idempotent put, the progress
   * is counted once per page, and the watermark is never ahead of the records.
   * Throws RunSupersededError when the run no longer holds the connection's
   * lock, SyncSinceChangedError when the watermarks were reset under the run;
   * in both cases the page wrote nothing.
   */
  commitPage(write: PageWrite): Promise<void>;
  /**
   * Where each of these leads stands in the store now (one strong BatchGetItem
   * per 100), for a page's stage transitions: called by the page task as soon
   * as the page's ids are known, under the run's lock, so it is what the page replaces.
   */
  readLeadStages(connectionId: string, leadIds: readonly string[]): Promise<LeadStages>;
  /**
   * One stored record with its lineage, by its key (`[id]`, `[pipelineId, stageId]` for stages);
   * `{ record: null, lineage: null }` when none is stored. One strong read of its head (its parts too, when split).
   */
  getRecord(connectionId: string, collection: Collection, key: RecordWrite["key"]): Promise<RecordWithLineage>;
  listRecords(
    connectionId: string,
    collection: Collection,
    /** order: `key` (default, the store's key order) or `newest` (by updated_at, else created_at, newest first). */
    options: { limit: number; cursor?: string | null; order?: RecordOrder },
  ): Promise<RecordPage>;
}
