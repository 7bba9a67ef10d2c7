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
