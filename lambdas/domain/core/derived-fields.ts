import type { Collection } from "./entities";

/**
 * What a stored document holds that the service derives rather than the
 * source sends: a lead's won/lost (from the stage kinds synced so far) and its
 * loss reason's id (ingestion/entity-catalog.ts writes them). An audit
 * compares only what the source sent, so stage kinds that changed since a
 * lead was stored never make it "changed".
 */
export const DERIVED_FIELDS: Partial<Record<Collection, readonly string[]>> = {
  leads: ["is_won", "is_lost", "loss_reason_id"],
};
