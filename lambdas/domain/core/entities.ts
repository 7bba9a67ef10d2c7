/**
 * Names of what is synced (entities, in the spec's sync order) and of what is
 * stored (collections: the entities plus stages and derived loss reasons).
 */

export const SYNC_ENTITIES = ["pipelines", "users", "contacts", "leads", "tasks", "calls", "events"] as const;
export type SyncEntity = (typeof SYNC_ENTITIES)[number];

export const COLLECTIONS = [
  "pipelines",
  "stages",
  "users",
  "contacts",
  "leads",
  "tasks",
  "calls",
  "events",
  "loss_reasons",
] as const;
export type Collection = (typeof COLLECTIONS)[number];

export const STAGE_KINDS = ["open", "won", "lost"] as const;
export type StageKind = (typeof STAGE_KINDS)[number];

/** Rows of a run summary, in sync order: stages come from /pipelines but are reported on their own. */
export const SUMMARY_ENTITIES = ["pipelines", "stages", "users", "contacts", "leads", "tasks", "calls", "events"] as const;
export type SummaryEntity = (typeof SUMMARY_ENTITIES)[number];
