import * as v from "valibot";
import { IsoTimeSchema } from "./iso-time-schema";
import { ERROR_DETAIL_MAX_CHARS } from "./limits";
import { AUDIT_ENTITIES } from "./run-mode";
import { EntityRunStatusSchema, RunFindingSchema, RunStatusSchema } from "./run-summary";

/*
 * An audit's summary, one schema per shape: the onboarding API documents its
 * audit responses with them and the run store reads audit items into them.
 */

const count = v.pipe(v.number(), v.integer(), v.minValue(0));

/** Why an audit wrote a record: the store lacked it, held an older updated_at, or other content at the same updated_at. */
export const HEAL_CAUSES = ["missed", "stale", "changed_without_advancing"] as const;
export const HealCauseSchema = v.picklist(HEAL_CAUSES);
export type HealCause = v.InferOutput<typeof HealCauseSchema>;

/** Ids an audit row keeps as examples of what it healed (and of leads absent at the source). */
export const AUDIT_SAMPLE_IDS = 5;

export const HealedCountsSchema = v.object({
  missed: count,
  stale: count,
  changed_without_advancing: count,
});
export type HealedCounts = v.InferOutput<typeof HealedCountsSchema>;

export const AuditEntitySchema = v.object({
  entity: v.picklist(AUDIT_ENTITIES),
  status: EntityRunStatusSchema,
  /** Distinct records the source returned from sync_since. */
  source_records: count,
  /** Records of the entity the store held when the audit finished reading it (healed ones included). */
  stored_records: count,
  /** What the audit healed: records at or below the watermark the store lacked or held wrong. The only alarm figures. */
  healed: HealedCountsSchema,
  /**
   * Records changed at the source after the last sync (their compared timestamp past the entity's watermark)
   * that the store does not yet hold as the source has them: not misses; left to the next sync, which asks for them.
   */
  ahead_of_watermark: count,
  /** Records the store holds that the source no longer returns: counted, never deleted (omission never deletes). */
  absent_in_source: count,
  /** A few ids of healed records (then of absent ones), at most AUDIT_SAMPLE_IDS. */
  sample_ids: v.pipe(v.array(v.string()), v.maxLength(AUDIT_SAMPLE_IDS), v.readonly()),
  /** The silent rules the source's records hit, as in a run summary's rows. */
  findings: v.pipe(v.array(RunFindingSchema), v.readonly()),
  /** Why the entity failed; null otherwise. Never the token. */
  error: v.nullable(v.pipe(v.string(), v.metadata({ maxLength: ERROR_DETAIL_MAX_CHARS }))),
});
export type AuditEntity = v.InferOutput<typeof AuditEntitySchema>;

export const AuditSummarySchema = v.object({
  id: v.string(),
  status: RunStatusSchema,
  started_at: IsoTimeSchema,
  finished_at: v.nullable(IsoTimeSchema),
  entities: v.pipe(v.array(AuditEntitySchema), v.readonly()),
});
export type AuditSummary = v.InferOutput<typeof AuditSummarySchema>;
