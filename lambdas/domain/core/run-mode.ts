import { SYNC_ENTITIES, type SyncEntity } from "./entities";

/**
 * A run of a connection's state machines is a sync or an audit. An audit is
 * the same run (one lock, the same state machines, rate limiter, retries and
 * page transactions) that reads every incremental entity in full from
 * sync_since and heals what the incremental syncs missed (docs/audits.md).
 *
 * The mode is read off the run id, its one home: an audit's id starts with
 * AUDIT_ID_PREFIX, a sync's with a digit (lambdas/domain/sync/run-id.ts), so the two
 * sort apart in the run partition (runs list below the prefix, audits in it).
 */
export const RUN_MODES = ["sync", "audit"] as const;
export type RunMode = (typeof RUN_MODES)[number];

export const AUDIT_ID_PREFIX = "audit-";

export function runModeOf(runId: string): RunMode {
  return runId.startsWith(AUDIT_ID_PREFIX) ? "audit" : "sync";
}

/** What an audit reads, in sync order: the incremental entities (pipelines and users are read whole by every sync). */
export const AUDIT_ENTITIES = ["contacts", "leads", "tasks", "calls", "events"] as const satisfies readonly SyncEntity[];
export type AuditEntity = (typeof AUDIT_ENTITIES)[number];

/** The entities a run of this mode goes through, in order. */
export function entitiesOfMode(mode: RunMode): readonly SyncEntity[] {
  return mode === "audit" ? AUDIT_ENTITIES : SYNC_ENTITIES;
}

/**
 * What one page of a run is, decided once by the page task
 * (lambdas/domain/sync/sync-page.ts) and carried as a value from there: a
 * sync's page of any entity, or an audit's page of an incremental one.
 */
export type PageKind = { readonly mode: "sync"; readonly entity: SyncEntity } | { readonly mode: "audit"; readonly entity: AuditEntity };

export function pageKindOf(runId: string, entity: SyncEntity): PageKind {
  if (runModeOf(runId) === "sync") return { mode: "sync", entity };
  if (!isAuditEntity(entity)) throw new TypeError(`an audit has no page of ${entity}: it reads only ${AUDIT_ENTITIES.join(", ")}`);
  return { mode: "audit", entity };
}

export function isAuditEntity(entity: SyncEntity): entity is AuditEntity {
  return (AUDIT_ENTITIES as readonly SyncEntity[]).includes(entity);
}
