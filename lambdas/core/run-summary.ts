import * as v from "valibot";
import { IsoTimeSchema } from "./iso-time-schema";
import { SUMMARY_ENTITIES } from "./entities";
import { ERROR_DETAIL_MAX_CHARS } from "./limits";

/*
 * A sync run's summary, one schema per shape: the TypeScript types come from
 * them, the onboarding API documents its run responses with them, and the run
 * store parses every summary it reads with them.
 */

export const RUN_STATUSES = ["running", "succeeded", "failed"] as const;
export const RunStatusSchema = v.picklist(RUN_STATUSES);
export type RunStatus = v.InferOutput<typeof RunStatusSchema>;

/** pending: not reached yet; running: in progress; the final summary holds only succeeded and failed. */
export const ENTITY_RUN_STATUSES = ["pending", "running", "succeeded", "failed"] as const;
export const EntityRunStatusSchema = v.picklist(ENTITY_RUN_STATUSES);
export type EntityRunStatus = v.InferOutput<typeof EntityRunStatusSchema>;

const count = v.pipe(v.number(), v.integer(), v.minValue(0));

/** One row of the summary: an entity's progress. */
export const EntityProgressSchema = v.object({
  entity: v.picklist(SUMMARY_ENTITIES),
  status: EntityRunStatusSchema,
  pages: count,
  records: count,
  /** Never the token; cut to ERROR_DETAIL_MAX_CHARS by the store (characters, so not re-checked on read). */
  error: v.nullable(v.pipe(v.string(), v.metadata({ maxLength: ERROR_DETAIL_MAX_CHARS }))),
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
