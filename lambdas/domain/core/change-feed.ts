import * as v from "valibot";
import { COLLECTIONS } from "./entities";
import { IsoTimeSchema } from "./iso-time-schema";

/*
 * The change feed (docs/history-feed-webhooks.md): what each commit wrote, in
 * commit order, across entities. The page's transaction that writes records
 * also writes which records it wrote (lambdas/adapters/dynamodb/records/page-history.ts),
 * so the feed holds exactly the committed writes, each record once per commit.
 */

/** How long a commit stays in the feed (DynamoDB TTL on its item; the reader also hides what is past it). */
export const CHANGE_RETENTION_DAYS = 30;
export const CHANGE_RETENTION_SECONDS = CHANGE_RETENTION_DAYS * 24 * 60 * 60;

export const CHANGE_ACTIONS = ["upsert", "delete"] as const;
export type ChangeAction = (typeof CHANGE_ACTIONS)[number];

/** One record a commit wrote, as the commit item keeps it. */
export interface ChangeEntry {
  readonly collection: (typeof COLLECTIONS)[number];
  /** `[id]`, or `[pipelineId, stageId]` for a stage. */
  readonly key: readonly string[];
  readonly action: ChangeAction;
}

/** One commit of the feed, as stored. */
export interface ChangeCommit {
  readonly runId: string;
  readonly committedAt: string;
  readonly entries: readonly ChangeEntry[];
}

/** A soft-deleted lead reads as a delete; every other write is an upsert. */
export function changeActionOf(collection: string, doc: Readonly<Record<string, unknown>>): ChangeAction {
  return collection === "leads" && doc["is_deleted"] === true ? "delete" : "upsert";
}

/** One change as GET .../changes returns it. */
export const ChangeSchema = v.object({
  entity: v.picklist(COLLECTIONS),
  id: v.string(),
  /** A stage's pipeline (its id repeats across pipelines); absent for other entities. */
  pipeline_id: v.optional(v.string()),
  action: v.picklist(CHANGE_ACTIONS),
  committed_at: IsoTimeSchema,
  run_id: v.string(),
  /** The record as stored now (its latest version); null when it is no longer stored (the connection's data purged). */
  record: v.nullable(v.record(v.string(), v.unknown())),
});
export type Change = v.InferOutput<typeof ChangeSchema>;

export const ChangesPageSchema = v.object({
  data: v.pipe(v.array(ChangeSchema), v.readonly()),
  next_cursor: v.pipe(v.string(), v.description("Pass back as `cursor` to read what was committed after this page; never null: the feed goes on")),
});
export type ChangesPage = v.InferOutput<typeof ChangesPageSchema>;
