import type { AuditEntity } from "../run-mode";
import type { Collection } from "../entities";

/** A record as the store holds it, for an audit to compare with what the source returns now. */
export interface StoredVersion {
  /** The canonical document exactly as stored (JSON text). */
  readonly doc: string;
  /** The audit that last wrote it and why; null when a sync did. */
  readonly healedBy: { readonly auditId: string; readonly cause: "missed" | "stale" | "changed_without_advancing" } | null;
}

/** What the store keeps of one record that explains it: its document and the marks audits left on it. */
export interface RecordTrace {
  /** The canonical document; null when the store does not hold the record. */
  readonly doc: Readonly<Record<string, unknown>> | null;
  /** Why the audit that healed it wrote it. */
  readonly healed: { readonly auditId: string; readonly cause: "missed" | "stale" | "changed_without_advancing"; readonly updatedAt: string | null; readonly watermark: string | null; readonly at: string } | null;
  /** The last audit that did not find it at the source (cleared when the record is written again). */
  readonly absent: { readonly auditId: string; readonly at: string } | null;
  /** Rule ids its last write hit, where its lineage keeps them. */
  readonly findings: readonly string[];
  /** The compared timestamp its last write carried (its lineage's last_written.source_updated_at); null when none. */
  readonly sourceUpdatedAt: string | null;
}

/** A record an audit's page returned with a compared timestamp past the entity's watermark: the next sync brings it. */
export interface AheadRecord {
  readonly id: string;
  /** Its compared timestamp (updated_at; events: updated_at, else created_at), toISOString form. */
  readonly updatedAt: string;
}

/** What one page of an audit saw past the watermark, kept with its returned ids for explain. */
export interface PageAhead {
  readonly ahead: readonly AheadRecord[];
  /** The page held a dated record at or below the watermark: the pages before it hold none past it (records ascend). */
  readonly settled: boolean;
  /** The entity's committed watermark when the audit read it. */
  readonly watermark: string | null;
}

/** What explain tells of a record the last audit saw past the watermark. */
export interface SeenAhead {
  readonly auditId: string;
  readonly updatedAt: string;
  readonly watermark: string | null;
}

/** What an audit needs of the store besides a page's commit (which is the record store's, as for a sync). */
export interface AuditStore {
  /** The stored versions of these ids of one collection (strongly consistent); an id the store lacks is not in the map. */
  storedVersions(connectionId: string, collection: Collection, ids: readonly string[]): Promise<ReadonlyMap<string, StoredVersion>>;
  /**
   * Remembers the ids one page of the audit returned (idempotent per page
   * number), so that once the entity is read whole the store's records the
   * source no longer returns can be told; and, in the same write, those past
   * the watermark, for explain.
   */
  rememberReturned(connectionId: string, auditId: string, entity: AuditEntity, page: number, ids: readonly string[], at: string, ahead?: PageAhead): Promise<void>;
  /**
   * Whether this audit's pages saw the record past the entity's watermark,
   * and at which compared timestamp; null when it did not (or its pages
   * expired). Reads the audit's last pages of the entity, back to the first
   * one that held a record at or below the watermark.
   */
  seenAhead(connectionId: string, auditId: string, entity: AuditEntity, id: string): Promise<SeenAhead | null>;
  /**
   * After the audit read the entity whole: how many records the store holds,
   * and which of them the source did not return. Those are marked on their
   * item (never deleted: omission never deletes) with the audit's id.
   */
  closeEntity(connectionId: string, auditId: string, entity: AuditEntity, at: string): Promise<{ readonly storedRecords: number; readonly absentIds: readonly string[] }>;
  /** One record's trace (explain), by id; stages by [pipelineId, stageId]. One strong read (its parts too when split). */
  recordTrace(connectionId: string, collection: Collection, key: readonly [string] | readonly [string, string]): Promise<RecordTrace>;
}
