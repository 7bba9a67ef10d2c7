import * as v from "valibot";
import { SYNC_ENTITIES, type SyncEntity } from "./entities";
import { IsoTimeSchema } from "./iso-time-schema";

/*
 * How current a connection's data is, per synced entity, and when it counts
 * as stale. One schema per shape; the rule is a pure function of the stored
 * facts and the clock, so the API, the run's end and the metric agree.
 */

/** One entity's freshness. */
export const EntityFreshnessSchema = v.object({
  /** When the entity last finished a run with every page committed (its last page's commit, one with nothing new too); a failed or cancelled entity keeps it; null: never. */
  data_as_of: v.nullable(IsoTimeSchema),
  /** The largest committed updated_at (incremental entities); null for /pipelines and /users, or before the first page. */
  watermark: v.nullable(IsoTimeSchema),
});
export type EntityFreshness = v.InferOutput<typeof EntityFreshnessSchema>;

export const FreshnessSchema = v.object(
  Object.fromEntries(SYNC_ENTITIES.map((entity) => [entity, EntityFreshnessSchema])) as Record<SyncEntity, typeof EntityFreshnessSchema>,
);
export type Freshness = v.InferOutput<typeof FreshnessSchema>;

/** freshness_hours on a connection: whole hours, at least 1, at most a year. */
export const MAX_FRESHNESS_HOURS = 8_760;
export const FreshnessHoursSchema = v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(MAX_FRESHNESS_HOURS));

/** Without freshness_hours on the connection: data older than twice the schedule interval is stale. */
export const DEFAULT_FRESHNESS_INTERVALS = 2;
const HOUR_MS = 3_600_000;

/**
 * The hours after which data is stale: the connection's own freshness_hours,
 * else twice the schedule interval (rounded up to whole hours); null when
 * neither is known (schedule off or a cron expression): nothing is ever stale.
 */
export function freshnessHours(configured: number | undefined, scheduleIntervalMs: number | null): number | null {
  if (configured !== undefined) return configured;
  if (scheduleIntervalMs === null) return null;
  return Math.max(1, Math.ceil((DEFAULT_FRESHNESS_INTERVALS * scheduleIntervalMs) / HOUR_MS));
}

/** A required entity whose data is older than freshness_hours. */
export interface StaleEntity {
  readonly entity: SyncEntity;
  readonly data_as_of: string | null;
}

/**
 * The required entities whose data is older than `hours` at `now`. An entity
 * never synced counts from the connection's creation, so a new connection is
 * not stale before its first run had the time to happen.
 */
export function staleEntities(input: {
  readonly freshness: Freshness;
  readonly hours: number | null;
  readonly required: readonly SyncEntity[];
  readonly createdAt: string;
  readonly now: Date;
}): StaleEntity[] {
  if (input.hours === null) return [];
  const limit = input.now.getTime() - input.hours * HOUR_MS;
  return input.required.flatMap((entity) => {
    const asOf = input.freshness[entity].data_as_of;
    return Date.parse(asOf ?? input.createdAt) < limit ? [{ entity, data_as_of: asOf }] : [];
  });
}

/** Hours since the oldest data_as_of of the required entities (never synced: since creation), for the age metric. */
export function oldestDataAgeHours(freshness: Freshness, required: readonly SyncEntity[], createdAt: string, now: Date): number {
  const oldest = Math.min(...required.map((entity) => Date.parse(freshness[entity].data_as_of ?? createdAt)));
  return Math.max(0, (now.getTime() - oldest) / HOUR_MS);
}
