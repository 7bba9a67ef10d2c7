/** The reference CRM's activity around its leads: tasks, calls and lead events. */
import type { Random } from "./prng";
import type { SourceCall, SourceContact, SourceEvent, SourceLead, SourcePipeline, SourceStage, SourceTask, SourceUser } from "./records";
import { at, DAY, HISTORY, HOUR, type Owners, type Timeline } from "./history";
import { stagesOfKind } from "./stages-of-kind";
import * as words from "./vocabulary";

/** A phone number in one of the two formats the reference CRM uses. */
export function phoneNumber(rng: Random): string {
  return rng.chance(0.6)
    ? `+1 555 ${rng.int(100, 999)} ${rng.int(1000, 9999)}`
    : `+49 30 ${rng.int(1000, 9999)} ${rng.int(100, 999)}`;
}

/** What tasks and calls are generated around: the history, the owners, and the leads and contacts they hang off. */
export interface Activity {
  readonly rng: Random;
  readonly timeline: Timeline;
  readonly owners: Owners;
  readonly leads: readonly SourceLead[];
  readonly contacts: readonly SourceContact[];
}

export function generateTasks(count: number, { rng, timeline, owners, leads, contacts }: Activity): SourceTask[] {
  const tasks: SourceTask[] = [];
  for (let i = 1; i <= count; i += 1) {
    const link = rng.next();
    // Most tasks hang off a lead, some off a contact, a very few off nothing (accepted, linked to nothing).
    const lead = leads.length > 0 && link < 0.75 ? rng.pick(leads) : null;
    const contact = lead === null && contacts.length > 0 && link < 0.98 ? rng.pick(contacts) : null;
    const created = timeline.ago(60 * DAY);
    // Due dates fall on both sides of now: open tasks due in the past are the overdue ones.
    const due = created + rng.int(1, 30 * 24) * HOUR;
    const completed = rng.chance(0.45) ? timeline.between(created, due + 3 * DAY) : null;
    tasks.push({
      id: `task-${i}`,
      lead_id: lead?.id ?? null,
      contact_id: contact?.id ?? null,
      responsible_user_id: lead?.responsible_user_id ?? owners.pick(),
      text: rng.pick(words.TASK_TEXTS),
      is_completed: completed !== null,
      due_at: timeline.stamp(due),
      completed_at: completed === null ? null : timeline.stamp(completed),
      updated_at: timeline.stamp(completed ?? timeline.between(created)),
    });
  }
  return tasks;
}

export function generateCalls(count: number, { rng, timeline, owners, leads, contacts }: Activity): SourceCall[] {
  const calls: SourceCall[] = [];
  for (let i = 1; i <= count; i += 1) {
    // A few calls are logged against a contact only (no lead_id key at all).
    const lead = leads.length > 0 && (contacts.length === 0 || rng.chance(0.85)) ? rng.pick(leads) : null;
    const contactId = lead ? (lead.contact_ids?.[0] ?? null) : rng.pick(contacts).id;
    const answered = rng.chance(0.75);
    const duration = answered ? rng.int(15, 1800) : 0;
    // Room for the call and its wrap-up before `latest`.
    const created = timeline.between(lead ? at(lead.created_at) : timeline.latest - HISTORY, timeline.latest - HOUR);
    const updated = created + duration * 1000 + rng.int(5, 120) * 1000;
    calls.push({
      id: `call-${i}`,
      ...(lead ? { lead_id: lead.id } : {}),
      contact_id: contactId,
      responsible_user_id: lead?.responsible_user_id ?? owners.pick(),
      direction: rng.chance(0.55) ? "out" : "in",
      duration_seconds: duration,
      phone: rng.chance(0.95) ? phoneNumber(rng) : null,
      call_status: answered ? words.CALL_STATUSES.answered : words.CALL_STATUSES.missed,
      ...(answered && rng.chance(0.5) ? { recording_link: `https://recordings.reference-crm.example/call-${i}.mp3` } : {}),
      created_at: timeline.stamp(created),
      updated_at: timeline.stamp(updated),
    });
  }
  return calls;
}

function stagePosition(pipeline: SourcePipeline, stage: SourceStage): { pipeline_id: string; stage_id: string } {
  return { pipeline_id: pipeline.id, stage_id: stage.id };
}

export function generateEvents(
  count: number,
  rng: Random,
  timeline: Timeline,
  pipelines: readonly SourcePipeline[],
  users: readonly SourceUser[],
  leads: readonly SourceLead[],
): SourceEvent[] {
  const pipelineById = new Map(pipelines.map((pipeline) => [pipeline.id, pipeline]));
  const events: SourceEvent[] = [];
  for (let i = 1; i <= count; i += 1) {
    const lead = rng.pick(leads);
    const pipeline = pipelineById.get(lead.pipeline_id) as SourcePipeline;
    const created = timeline.between(at(lead.created_at), at(lead.updated_at));
    const roll = rng.next();
    let change: Pick<SourceEvent, "type" | "value_before" | "value_after">;
    if (roll < 0.4) {
      // Objects; no value_before on the move into the first stage (no prior state).
      const from = rng.pick(stagesOfKind(pipeline, "open"));
      const to = rng.pick(pipeline.stages);
      change = rng.chance(0.15)
        ? { type: "stage_changed", value_after: stagePosition(pipeline, from) }
        : { type: "stage_changed", value_before: stagePosition(pipeline, from), value_after: stagePosition(pipeline, to) };
    } else if (roll < 0.65) {
      change = { type: "note_added", value_after: rng.pick(words.NOTE_TEXTS) }; // a scalar: the service wraps it
    } else if (roll < 0.8) {
      // Numbers; now and then an explicit null before (the price was never set).
      const before = rng.chance(0.1) ? null : rng.int(10, 1000) * 50;
      change = { type: "price_changed", value_before: before, value_after: rng.int(10, 1000) * 50 };
    } else if (roll < 0.9) {
      change = { type: "responsible_changed", value_before: rng.pick(users).id, value_after: rng.pick(users).id };
    } else {
      change = { type: "tags_changed", value_before: [], value_after: rng.sample(words.TAGS, rng.int(1, 2)) }; // arrays
    }
    // Events are immutable, except notes corrected later: those carry an updated_at.
    const edited = change.type === "note_added" && rng.chance(0.3);
    events.push({
      id: `event-${i}`,
      lead_id: lead.id,
      ...change,
      created_at: timeline.stamp(created),
      ...(edited ? { updated_at: timeline.stamp(timeline.between(created, created + 2 * DAY)) } : {}),
      ...(rng.chance(0.7) ? { created_by: rng.pick(users).id } : {}),
    });
  }
  return events;
}
