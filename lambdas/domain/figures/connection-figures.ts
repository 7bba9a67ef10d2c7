import * as v from "valibot";
import { COLLECTIONS } from "../core/entities";
import { IsoTimeSchema } from "../core/iso-time-schema";
import { FunnelSchema } from "./funnel";

const count = v.pipe(v.number(), v.integer(), v.minValue(0));

/** Stored records per collection, as counted at the end of a run (soft-deleted leads included: they are stored). */
export const RecordCountsSchema = v.object({
  computed_at: v.pipe(IsoTimeSchema, v.description("When the counts were taken: at the end of the run named by run_id")),
  run_id: v.nullable(v.string()),
  collections: v.object(Object.fromEntries(COLLECTIONS.map((collection) => [collection, count])) as Record<(typeof COLLECTIONS)[number], typeof count>),
});
export type RecordCounts = v.InferOutput<typeof RecordCountsSchema>;

/**
 * A connection's figures, kept by the sync (one small item, docs/onboarding-api.md): recomputed at a run's end from
 * the stored records, and served as they are, so no request reads every record.
 */
export const ConnectionFiguresSchema = v.object({
  counts: RecordCountsSchema,
  funnel: FunnelSchema,
  /** Each entity's stored version when they were computed (FiguresStore.versions): kept, never served. */
  versions: v.optional(v.record(v.string(), v.string())),
});
export type ConnectionFigures = v.InferOutput<typeof ConnectionFiguresSchema>;
