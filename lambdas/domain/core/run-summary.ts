import * as v from "valibot";
import { IsoTimeSchema } from "./iso-time-schema";
import { SUMMARY_ENTITIES } from "./entities";
import { ERROR_DETAIL_MAX_CHARS, FINDING_SAMPLE_IDS } from "./limits";
import { SeveritySchema } from "./severity";

/*
 * A sync run's summary, one schema per shape: the TypeScript types come from
 * them, the onboarding API documents its run responses with them, and the run
 * store parses every summary it reads with them.
 */

/** cancelled: the owner cancelled it; not a failure (health, alerts and metrics leave it out). */
export const RUN_STATUSES = ["running", "succeeded", "failed", "cancelled"] as const;
export const RunStatusSchema = v.picklist(RUN_STATUSES);
export type RunStatus = v.InferOutput<typeof RunStatusSchema>;

/** pending: not reached yet; running: in progress; the final summary holds succeeded, failed and (a cancelled run's unfinished rows) cancelled. */
export const ENTITY_RUN_STATUSES = ["pending", "running", "succeeded", "failed", "cancelled"] as const;
export const EntityRunStatusSchema = v.picklist(ENTITY_RUN_STATUSES);
export type EntityRunStatus = v.InferOutput<typeof EntityRunStatusSchema>;

const count = v.pipe(v.number(), v.integer(), v.minValue(0));

/**
 * One wait the state machine makes before trying a page again: after a 429
 * (`throttled`: the larger of Retry-After and the backoff step) or after a
 * 5xx, timeout or broken connection (`retry`: the backoff step).
 */
export const RunWaitSchema = v.object({
  kind: v.picklist(["throttled", "retry"]),
  page: v.pipe(v.number(), v.integer(), v.minValue(1)),
  /** 1..MAX_RETRIES: which try of the page comes after the wait. */
  attempt: v.pipe(v.number(), v.integer(), v.minValue(1)),
  seconds: v.pipe(v.number(), v.minValue(0)),
  /** The source's Retry-After (429 only). */
  retry_after_seconds: v.nullable(v.pipe(v.number(), v.minValue(0))),
  /** When the page task recorded it (the wait starts right after). */
  at: IsoTimeSchema,
  /** What the source answered, cut to 300 characters; never the token. */
  detail: v.nullable(v.pipe(v.string(), v.metadata({ maxLength: ERROR_DETAIL_MAX_CHARS }))),
  /** The catalog's rule the failed try broke (a retry's: `source.reachable`, `source.server-errors-recover`, ...); null for a 429's wait and waits recorded before rules were. */
  rule: v.nullable(v.string()),
});
export type RunWait = v.InferOutput<typeof RunWaitSchema>;

/**
 * One silent rule of the spec that records of the entity hit in this run: a
 * record the sync stored, but not as the source meant it.
 */
export const RunFindingSchema = v.object({
  /** The rule's id in the conformance kit's catalog (lambdas/domain/source-contract/rules/catalog.ts). */
  rule: v.string(),
  severity: SeveritySchema,
  /** Records of the entity that hit the rule, each counted once per page (exact across retries and replays). */
  count: v.pipe(v.number(), v.integer(), v.minValue(1)),
  /** A few of their ids, from the first pages that hit the rule. */
  sample_ids: v.pipe(v.array(v.string()), v.maxLength(FINDING_SAMPLE_IDS), v.readonly()),
  /** What the first of them showed, for a person; never the token. */
  detail: v.pipe(v.string(), v.metadata({ maxLength: ERROR_DETAIL_MAX_CHARS })),
});
export type RunFinding = v.InferOutput<typeof RunFindingSchema>;

/**
 * Why an entity failed, for the owner: the rule of the catalog it broke (the
 * kit's rules and the sync's own failures share one list), the record and
 * field when the failure is about one, what happened in words, and the fix.
 */
export const EntityFailureSchema = v.object({
  /** The rule's id in the catalog (lambdas/domain/source-contract/rules/catalog.ts). */
  rule: v.string(),
  /** The record's id as the source sent it (an id over 255 characters cut there, ending in …); null when the failure is not about one record or it has no usable id. */
  record_id: v.nullable(v.string()),
  /** The field's path in the record (`price`, `stages[2].kind`); null when no one field is at fault. */
  field: v.nullable(v.string()),
  /** What happened, for a person: record, field and rule first; at most 300 characters, never the token or an error class. */
  detail: v.pipe(v.string(), v.metadata({ maxLength: ERROR_DETAIL_MAX_CHARS })),
  /** What to change, from the catalog. */
  fix: v.string(),
});
export type EntityFailure = v.InferOutput<typeof EntityFailureSchema>;

/** One row of the summary: an entity's progress. */
export const EntityProgressSchema = v.object({
  entity: v.picklist(SUMMARY_ENTITIES),
  status: EntityRunStatusSchema,
  pages: count,
  records: count,
  /** The failure's detail (failure.detail); never the token; cut to ERROR_DETAIL_MAX_CHARS by the store (characters, so not re-checked on read). */
  error: v.nullable(v.pipe(v.string(), v.metadata({ maxLength: ERROR_DETAIL_MAX_CHARS }))),
  /** Why the entity failed, with the rule and its fix; null unless it failed. */
  failure: v.nullable(EntityFailureSchema),
  /** Each wait before a page was tried again, oldest first, as the page task recorded it (at most MAX_RECORDED_WAITS). */
  waits: v.pipe(v.array(RunWaitSchema), v.readonly()),
  /** The silent rules its records hit, errors first, then by rule id. */
  findings: v.pipe(v.array(RunFindingSchema), v.readonly()),
});
export type EntityProgress = v.InferOutput<typeof EntityProgressSchema>;

export const RunSummarySchema = v.object({
  id: v.string(),
  connection_id: v.string(),
  status: RunStatusSchema,
  started_at: IsoTimeSchema,
  finished_at: v.nullable(IsoTimeSchema),
  unresolved_won_lost: count,
  /** In sync order. */
  entities: v.pipe(v.array(EntityProgressSchema), v.readonly()),
});
export type RunSummary = v.InferOutput<typeof RunSummarySchema>;
