import * as v from "valibot";
import { IsoTimeSchema } from "./iso-time-schema";

/*
 * A lead's stage history (docs/history-feed-webhooks.md). The spec keeps only
 * each lead's current stage_id; the sync sees every move a page brings, so it
 * keeps one: a transition when a page writes a lead whose stage differs from
 * the stored one, and the entry into its first stage when the lead is first
 * seen. Pure: the store decides where they go, this decides what they are.
 */

export const TRANSITION_SOURCES = ["observed", "reported"] as const;
export type TransitionSource = (typeof TRANSITION_SOURCES)[number];

/** One move of a lead between stages; `from_stage_id` null: the lead's entry into its first known stage. */
export const StageTransitionSchema = v.object({
  lead_id: v.string(),
  pipeline_id: v.nullable(v.string()),
  from_stage_id: v.nullable(v.string()),
  to_stage_id: v.nullable(v.string()),
  /** When the lead moved, as well as the service knows: the event's time (reported), else the source's updated_at, else when the service saw it (the entry: created_at when known). */
  at: IsoTimeSchema,
  /** observed: seen by a sync comparing the stored stage; reported: a stage event from the source's /events. */
  source: v.picklist(TRANSITION_SOURCES),
  /** When the page that recorded it committed. */
  seen_at: IsoTimeSchema,
  /** The lead's updated_at as the page carried it (observed), null when missing or unparseable or reported. */
  source_updated_at: v.nullable(IsoTimeSchema),
  run_id: v.string(),
  /** The source event it came from (reported only). */
  event_id: v.nullable(v.string()),
});
export type StageTransition = v.InferOutput<typeof StageTransitionSchema>;

/** GET .../records/leads/{id}/history. */
export const LeadHistorySchema = v.object({
  lead_id: v.string(),
  /** In time order (`at`, then observed before reported at the same time). */
  data: v.pipe(v.array(StageTransitionSchema), v.readonly()),
});
export type LeadHistory = v.InferOutput<typeof LeadHistorySchema>;

/** Where a lead stood when the page read the store before writing it; null: the store did not hold it (first sight). */
export interface StoredStage {
  readonly pipelineId: string | null;
  readonly stageId: string | null;
}

/** What the page commits with a lead besides the lead itself. */
export interface PageContext {
  readonly runId: string;
  readonly committedAt: string;
}

/** The stage fields of a canonical lead document. */
export function stageOf(doc: Readonly<Record<string, unknown>>): StoredStage {
  const text = (value: unknown) => (typeof value === "string" && value !== "" ? value : null);
  return { pipelineId: text(doc["pipeline_id"]), stageId: text(doc["stage_id"]) };
}

/**
 * The transition a write of `doc` records against what the store held:
 * none when the stage (pipeline and stage) is unchanged, so a re-sent identical
 * lead and a replayed page (which reads the stage it wrote) record nothing;
 * the entry into its first stage at first sight (at its created_at when known);
 * a move otherwise, at the source's updated_at when known.
 */
export function observedTransition(stored: StoredStage | null, doc: Readonly<Record<string, unknown>>, leadId: string, page: PageContext): StageTransition | null {
  const now = stageOf(doc);
  const sourceUpdatedAt = isoOrNull(doc["updated_at"]);
  if (stored === null) {
    if (now.stageId === null) return null;
    return transition(leadId, now, null, isoOrNull(doc["created_at"]) ?? page.committedAt, sourceUpdatedAt, page);
  }
  if (stored.stageId === now.stageId && stored.pipelineId === now.pipelineId) return null;
  return transition(leadId, now, stored.stageId, sourceUpdatedAt ?? page.committedAt, sourceUpdatedAt, page);
}

function transition(leadId: string, now: StoredStage, from: string | null, at: string, sourceUpdatedAt: string | null, page: PageContext): StageTransition {
  return {
    lead_id: leadId,
    pipeline_id: now.pipelineId,
    from_stage_id: from,
    to_stage_id: now.stageId,
    at,
    source: "observed",
    seen_at: page.committedAt,
    source_updated_at: sourceUpdatedAt,
    run_id: page.runId,
    event_id: null,
  };
}

/** Canonical timestamps are stored as toISOString() or null; anything else is not a time. */
function isoOrNull(value: unknown): string | null {
  return typeof value === "string" && !Number.isNaN(Date.parse(value)) ? value : null;
}

/** A lead's transitions in the order the history shows them. */
export function inHistoryOrder(transitions: readonly StageTransition[]): StageTransition[] {
  const rank = (t: StageTransition) => (t.from_stage_id === null && t.source === "observed" ? 0 : 1);
  return [...transitions].sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : rank(a) - rank(b) || (a.source < b.source ? -1 : a.source > b.source ? 1 : 0)));
}
