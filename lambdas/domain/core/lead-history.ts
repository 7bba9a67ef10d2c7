import * as v from "valibot";
import { IsoTimeSchema } from "./iso-time-schema";
import { isStageEventType } from "./stage-event-type";

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

/** Where each lead of a page stood before it (by lead id); null: not stored (first sight). */
export type LeadStages = ReadonlyMap<string, StoredStage | null>;

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

/*
 * A stage event (docs/history-feed-webhooks.md): its `type` is the one the
 * connection names (./stage-event-type.ts; unset: a type containing "stage",
 * any case) and its value_after holds a stage id: a scalar (stored wrapped as
 * `{ value }`) or an object with `stage_id` (else `id`). `pipeline_id` is read
 * from the same object when it has one. value_before gives the stage it left
 * (null: none known).
 */

/** The stage an event's value names, or null. */
function stageInValue(value: unknown): { stageId: string; pipelineId: string | null } | null {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return null;
  const object = value as Record<string, unknown>;
  const id = [object["stage_id"], object["value"], object["id"]].find((candidate) => (typeof candidate === "string" && candidate !== "") || typeof candidate === "number");
  if (id === undefined) return null;
  const pipeline = object["pipeline_id"];
  return { stageId: String(id), pipelineId: typeof pipeline === "string" && pipeline !== "" ? pipeline : null };
}

/** The transition a canonical event reports, or null when it is not a stage event (under the connection's setting, null: unset) with a stage after it and a time. */
export function reportedTransition(event: Readonly<Record<string, unknown>>, page: PageContext, stageEventType: string | null): StageTransition | null {
  if (!isStageEventType(event["type"], stageEventType)) return null;
  const after = stageInValue(event["value_after"]);
  const at = isoOrNull(event["created_at"]);
  const leadId = event["lead_id"];
  const eventId = event["id"];
  if (after === null || at === null || typeof leadId !== "string" || typeof eventId !== "string") return null;
  const before = stageInValue(event["value_before"]);
  return {
    lead_id: leadId,
    pipeline_id: after.pipelineId ?? before?.pipelineId ?? null,
    from_stage_id: before?.stageId ?? null,
    to_stage_id: after.stageId,
    at,
    source: "reported",
    seen_at: page.committedAt,
    source_updated_at: null,
    run_id: page.runId,
    event_id: eventId,
  };
}

/**
 * A lead's history with the source's own word preferred: an observed move
 * that a reported one also gives (same from and to stage) is dropped, and the
 * reported one, at the source's time, stays. An observed pipeline fills a
 * reported move that named none.
 */
export function preferReported(transitions: readonly StageTransition[]): StageTransition[] {
  const byLead = new Map<string, StageTransition[]>();
  for (const t of transitions) byLead.set(t.lead_id, [...(byLead.get(t.lead_id) ?? []), t]);
  return [...byLead.values()].flatMap((own) => {
    const reported = own.filter((t) => t.source === "reported");
    if (reported.length === 0) return own;
    const observed = own.filter((t) => t.source === "observed");
    const same = (a: StageTransition, b: StageTransition) => a.from_stage_id === b.from_stage_id && a.to_stage_id === b.to_stage_id;
    const pipelineOf = (t: StageTransition) => observed.find((o) => o.to_stage_id === t.to_stage_id)?.pipeline_id ?? observed[0]?.pipeline_id ?? null;
    return [...observed.filter((o) => !reported.some((r) => same(o, r))), ...reported.map((t) => (t.pipeline_id !== null ? t : { ...t, pipeline_id: pipelineOf(t) }))];
  });
}
