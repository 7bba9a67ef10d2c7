import * as v from "valibot";
import { SYNC_ENTITIES, type SyncEntity } from "../core/entities";
import { entityDefinition } from "../source-contract/entity-catalog";
import { startSync } from "../sync/start-sync";
import { parseFields, parseJsonBody } from "./connection-input";
import { findConnection } from "./connection-operations";
import type { OnboardingDeps } from "./onboarding-deps";
import { RunStartedSchema } from "./run-operations";

/** Entities with a watermark: pipelines and users are read in full on every run, so there is nothing to reset. */
export const RESETTABLE_ENTITIES: readonly SyncEntity[] = SYNC_ENTITIES.filter((entity) => entityDefinition(entity).incremental);

const ENTITY_RULE = `must be one of ${RESETTABLE_ENTITIES.join(", ")} (pipelines and users are read in full on every run)`;

/** POST body, every field optional: no entity resets every incremental entity. */
export const ResetSyncSchema = v.object({
  entity: v.optional(v.picklist(RESETTABLE_ENTITIES as SyncEntity[], ENTITY_RULE)),
  start_sync: v.optional(v.boolean("must be a boolean")),
});

export const ResetResultSchema = v.object({
  reset: v.pipe(v.array(v.picklist(RESETTABLE_ENTITIES as SyncEntity[])), v.readonly(), v.description("The entities whose watermark went back to sync_since")),
  run: v.pipe(v.nullable(RunStartedSchema), v.description("The run started (or already in progress) when start_sync was true; null otherwise")),
});
export type ResetResult = v.InferOutput<typeof ResetResultSchema>;

/**
 * Watermarks back to sync_since, for one entity or every incremental one, then
 * optionally a sync. A run under way is fenced off first (the store's reset),
 * so it cannot write a watermark back: it stops at its next page.
 */
export async function resetSync(
  deps: OnboardingDeps,
  account: string,
  id: string,
  body: string | undefined,
): Promise<ResetResult> {
  const connection = await findConnection(deps, account, id);
  const input = parseFields(ResetSyncSchema, body === undefined || body.trim() === "" ? {} : parseJsonBody(body));
  if (input.entity === undefined) await deps.records.resetWatermarks(id);
  else await deps.records.resetWatermark(id, input.entity);
  const reset = input.entity === undefined ? RESETTABLE_ENTITIES : [input.entity];
  deps.logger.info("watermarks reset", { business_account_id: account, connection_id: id, entities: reset });
  if (input.start_sync !== true) return { reset, run: null };
  const { runId } = await startSync(deps, connection);
  return { reset, run: { id: runId, status: "running" } };
}
