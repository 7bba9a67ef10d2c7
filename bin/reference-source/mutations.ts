/**
 * "Changing over time": one round of edits a live CRM would see, applied to
 * a dataset in place. Every changed record gets a new updated_at, because the
 * spec's incremental sync only ever re-reads records whose updated_at moved
 * (Incremental rules 3). Records are replaced, never edited, so a read that
 * took a snapshot of the old objects keeps serving them unchanged.
 */
import { LOST_STAGE_ID } from "./dataset";
import { stagesOfKind } from "./stages-of-kind";
import type { Random } from "./prng";
import type { Dataset, SourceContact, SourceEvent, SourceLead, SourcePipeline, SourceTask } from "./records";
import { formatTimestamp, OFFSET_MINUTES } from "./timestamps";
import * as words from "./vocabulary";

/** Ids of the records one mutation touched, per endpoint, and the instant it ran at. */
export interface MutationSummary {
  readonly at: string;
  readonly leads: readonly string[];
  readonly contacts: readonly string[];
  readonly tasks: readonly string[];
  readonly events: readonly string[];
}

/** How much one round changes. Small, so a sync shows a trickle of updates, not a rewrite. */
const STAGE_MOVES = 3;
const CONTACT_EDITS = 2;
const TASK_COMPLETIONS = 2;

export function mutate(dataset: Dataset, now: Date, rng: Random): MutationSummary {
  const nowMs = Math.floor(now.getTime() / 1000) * 1000;
  const offset = rng.pick(OFFSET_MINUTES);
  /**
   * `now`, or one second after the record's current updated_at if that is not
   * earlier: two changes within one second must still move the timestamp.
   */
  const nextStamp = (current: string | undefined): string => {
    const previous = current === undefined ? Number.NEGATIVE_INFINITY : Date.parse(current);
    return formatTimestamp(Math.max(nowMs, previous + 1000), offset);
  };
  const changed = { leads: new Set<string>(), contacts: new Set<string>(), tasks: new Set<string>(), events: new Set<string>() };

  const pipelines = new Map(dataset.pipelines.map((pipeline) => [pipeline.id, pipeline]));
  const replaceLead = (index: number, lead: SourceLead): void => {
    dataset.leads[index] = lead;
    changed.leads.add(lead.id);
  };
  const addEvent = (event: Omit<SourceEvent, "id" | "created_at">): void => {
    // Events are only ever appended, so the count gives the next free id.
    const created: SourceEvent = { id: `event-${dataset.events.length + 1}`, ...event, created_at: nextStamp(undefined) };
    dataset.events.push(created);
    changed.events.add(created.id);
  };

  // Stage moves: open leads in active pipelines step to the next stage; some of them close.
  const movable = indexesWhere(dataset.leads, (lead) => {
    const pipeline = pipelines.get(lead.pipeline_id);
    return !lead.is_deleted && pipeline !== undefined && !pipeline.is_archived && stageKind(pipeline, lead.stage_id) === "open";
  });
  for (const index of rng.sample(movable, STAGE_MOVES)) {
    const lead = dataset.leads[index] as SourceLead;
    const pipeline = pipelines.get(lead.pipeline_id) as SourcePipeline;
    const next = nextStage(pipeline, lead.stage_id, rng);
    const stamp = nextStamp(lead.updated_at);
    replaceLead(index, {
      ...lead,
      stage_id: next.id,
      closed_at: next.kind === "open" ? null : stamp,
      // The spec's rule kept by the generator too: a loss reason only on a lost lead.
      loss_reason: next.kind === "lost" ? rng.pick(words.LOSS_REASONS) : null,
      updated_at: stamp,
    });
    addEvent({
      lead_id: lead.id,
      type: "stage_changed",
      value_before: { pipeline_id: pipeline.id, stage_id: lead.stage_id },
      value_after: { pipeline_id: pipeline.id, stage_id: next.id },
      ...(lead.responsible_user_id ? { created_by: lead.responsible_user_id } : {}),
    });
  }

  // A new lead in the first stage of the first active pipeline.
  const active = dataset.pipelines.find((pipeline) => !pipeline.is_archived) ?? dataset.pipelines[0];
  if (active !== undefined) {
    const first = stagesOfKind(active, "open")[0] ?? (active.stages[0] as SourcePipeline["stages"][number]);
    const stamp = nextStamp(undefined);
    const contact = dataset.contacts.length > 0 ? rng.pick(dataset.contacts) : undefined;
    const owner = dataset.users.length > 0 ? rng.pick(dataset.users).id : null;
    const lead: SourceLead = {
      // Leads are never removed (deletion is a tombstone), so the count gives the next free id.
      id: `lead-${dataset.leads.length + 1}`,
      name: `${rng.pick(words.COMPANIES)}: ${rng.pick(words.PRODUCTS)}`,
      price: rng.int(10, 1000) * 50,
      currency: "EUR",
      pipeline_id: active.id,
      stage_id: first.id,
      responsible_user_id: owner,
      contact_ids: contact ? [contact.id] : null,
      loss_reason: null,
      source: rng.pick(words.LEAD_SOURCES),
      custom_fields: null,
      created_at: stamp,
      updated_at: stamp,
      closed_at: null,
      is_deleted: false,
    };
    replaceLead(dataset.leads.length, lead);
    addEvent({ lead_id: lead.id, type: "stage_changed", value_after: { pipeline_id: active.id, stage_id: first.id } });
  }

  // Contact edits: a new phone number and a touched custom field.
  for (const index of rng.sample(indexesWhere(dataset.contacts, () => true), CONTACT_EDITS)) {
    const contact = dataset.contacts[index] as SourceContact;
    dataset.contacts[index] = {
      ...contact,
      phone: `+1 555 ${rng.int(100, 999)} ${rng.int(1000, 9999)}`,
      custom_fields: { ...contact.custom_fields, last_touch: "phone updated" },
      updated_at: nextStamp(contact.updated_at),
    };
    changed.contacts.add(contact.id);
  }

  // Task completions.
  for (const index of rng.sample(indexesWhere(dataset.tasks, (task) => !task.is_completed), TASK_COMPLETIONS)) {
    const task = dataset.tasks[index] as SourceTask;
    const stamp = nextStamp(task.updated_at);
    dataset.tasks[index] = { ...task, is_completed: true, completed_at: stamp, updated_at: stamp };
    changed.tasks.add(task.id);
  }

  // One soft-delete: the tombstone must advance updated_at like any other change, or it is never pulled.
  const deletable = indexesWhere(dataset.leads, (lead) => !lead.is_deleted && !changed.leads.has(lead.id));
  if (deletable.length > 0) {
    const index = rng.pick(deletable);
    const lead = dataset.leads[index] as SourceLead;
    replaceLead(index, { ...lead, is_deleted: true, updated_at: nextStamp(lead.updated_at) });
  }

  dataset.revision += 1;
  return {
    at: new Date(nowMs).toISOString(),
    leads: [...changed.leads],
    contacts: [...changed.contacts],
    tasks: [...changed.tasks],
    events: [...changed.events],
  };
}

function indexesWhere<T>(items: readonly T[], predicate: (item: T) => boolean): number[] {
  const indexes: number[] = [];
  items.forEach((item, index) => {
    if (predicate(item)) indexes.push(index);
  });
  return indexes;
}

function stageKind(pipeline: SourcePipeline, stageId: string): string | undefined {
  return pipeline.stages.find((stage) => stage.id === stageId)?.kind;
}

/** The next open stage by sort; from the last open stage the lead closes, won or (less often) lost. */
function nextStage(pipeline: SourcePipeline, stageId: string, rng: Random): SourcePipeline["stages"][number] {
  const open = stagesOfKind(pipeline, "open").sort((a, b) => a.sort - b.sort);
  const position = open.findIndex((stage) => stage.id === stageId);
  const following = open[position + 1];
  if (following !== undefined) return following;
  const closing = rng.chance(0.6) ? stagesOfKind(pipeline, "won") : stagesOfKind(pipeline, "lost");
  return closing[0] ?? (pipeline.stages.find((stage) => stage.id === LOST_STAGE_ID) as SourcePipeline["stages"][number]);
}
