import type { RunFinding } from "./api";

/*
 * Shapes of the data-trust routes (issue 22) as the console reads them: a
 * connection's quality, one record with its lineage, its explanation, audits.
 * The API's valibot schemas are the source of truth; these mirror what the page uses.
 */

/** One silent rule an entity's records hit over the recent runs (GET .../quality). */
export interface QualityRule {
  readonly rule: string;
  readonly severity: "error" | "warning";
  readonly spec: string;
  readonly fix: string;
  readonly last_successful_run: number | null;
  /** Per run of `Quality.runs`, newest first. */
  readonly counts: readonly { readonly run_id: string; readonly count: number }[];
  readonly sample_ids: readonly string[];
  readonly detail: string;
}

export interface Quality {
  readonly connection_id: string;
  /** The finished runs counted, newest first. */
  readonly runs: readonly { readonly id: string; readonly status: string; readonly started_at: string; readonly finished_at: string | null }[];
  readonly last_successful_run_id: string | null;
  readonly entities: readonly { readonly entity: string; readonly rules: readonly QualityRule[] }[];
}

export interface RecordLineage {
  readonly first_seen: { readonly run_id: string; readonly page: number; readonly at: string } | null;
  readonly last_written: { readonly run_id: string; readonly page: number; readonly at: string; readonly source_updated_at: string | null } | null;
  readonly writes: number;
  readonly deleted_at: string | null;
  readonly healed_by_audit: string | null;
  readonly findings: readonly string[];
}

/** GET .../records/{collection}/{id}: `record` and `lineage` are null together when the store has no such record. */
export interface RecordWithLineage {
  readonly record: Record<string, unknown> | null;
  readonly lineage: RecordLineage | null;
}

export const VERDICTS = ["current", "updated-at-unparseable", "updated-at-future", "healed-by-audit", "soft-deleted", "never-returned", "ahead-of-watermark"] as const;

/** GET .../records/{collection}/{id}/explain. */
export interface Explanation {
  readonly present: boolean;
  readonly verdict: (typeof VERDICTS)[number];
  readonly detail: string;
  readonly collection: string;
  readonly record_id: string;
  readonly updated_at: string | null;
  readonly healed_by_audit: {
    readonly audit_id: string;
    readonly cause: HealCause;
    readonly updated_at: string | null;
    readonly watermark: string | null;
    readonly at: string;
  } | null;
  readonly ahead_of_watermark: { readonly audit_id: string; readonly updated_at: string; readonly watermark: string | null } | null;
  readonly absent_in_source: { readonly audit_id: string; readonly at: string } | null;
  readonly findings: readonly string[];
  readonly last_audit: { readonly id: string; readonly status: string; readonly started_at: string; readonly finished_at: string | null } | null;
}

export const HEAL_CAUSES = ["missed", "stale", "changed_without_advancing"] as const;
export type HealCause = (typeof HEAL_CAUSES)[number];
export const HEAL_CAUSE_WORDS: Readonly<Record<HealCause, string>> = {
  missed: "missed (the service did not have it)",
  stale: "out of date (older than in your CRM)",
  changed_without_advancing: "changed without its change time moving",
};

/** Records changed after the last sync: not misses, and not healed; the next sync brings them. */
export const AHEAD_WORDS = "changed after the last sync";

export interface AuditEntity {
  readonly entity: string;
  readonly status: "pending" | "running" | "succeeded" | "failed";
  readonly source_records: number;
  readonly stored_records: number;
  readonly healed: Readonly<Record<HealCause, number>>;
  readonly ahead_of_watermark: number;
  readonly absent_in_source: number;
  readonly sample_ids: readonly string[];
  readonly findings: readonly RunFinding[];
  readonly error: string | null;
}

export interface AuditSummary {
  readonly id: string;
  readonly status: "running" | "succeeded" | "failed";
  readonly started_at: string;
  readonly finished_at: string | null;
  readonly entities: readonly AuditEntity[];
}

export const healedOf = (entity: AuditEntity): number => HEAL_CAUSES.reduce((sum, cause) => sum + entity.healed[cause], 0);
