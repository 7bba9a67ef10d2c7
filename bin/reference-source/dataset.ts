/**
 * The reference CRM's data: a deterministic generator. The same seed, sizes
 * and `now` always give the same records, so a test or benchmark can rebuild
 * exactly what a server served. Every record follows the spec's field shapes;
 * the variety (numeric-string prices, mixed offsets, tombstones, calls linked
 * to a contact only, scalar and object event values) is there on purpose, so
 * that a consumer meets every allowed form.
 */
import { seededRandom, type Random } from "./prng";
import type {
  CustomFields,
  Dataset,
  SourceCall,
  SourceContact,
  SourceEvent,
  SourceLead,
  SourcePipeline,
  SourceStage,
  SourceTask,
  SourceUser,
  SourceUtm,
} from "./records";
import { formatTimestamp, OFFSET_MINUTES } from "./timestamps";
import * as words from "./vocabulary";

export interface DatasetSizes {
  readonly pipelines: number;
  readonly users: number;
  readonly contacts: number;
  readonly leads: number;
  readonly tasks: number;
  readonly calls: number;
  readonly events: number;
}

export const DEFAULT_SIZES: DatasetSizes = {
  pipelines: 3,
  users: 30,
  contacts: 5000,
  leads: 5000,
  tasks: 3000,
  calls: 3000,
  events: 8000,
};

export interface DatasetOptions extends Partial<DatasetSizes> {
  readonly seed: number;
  /** The moment the history ends; default the current time. */
  readonly now?: Date;
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
/** How far back the history goes. */
const HISTORY = 180 * DAY;
/**
 * The newest generated change is at least this old, so that a change made
 * "now" (see mutations.ts) always has a later updated_at than anything before it.
 */
const QUIET = MINUTE;

/** Stage ids every pipeline shares, as some CRMs do (amoCRM uses 142 and 143): the spec keys stages per pipeline. */
export const WON_STAGE_ID = "142";
export const LOST_STAGE_ID = "143";

const ACTIVE_PIPELINES = [
  { name: "New business", open: ["Incoming", "Qualified", "Proposal sent", "Negotiation"] },
  { name: "Renewals", open: ["Up for renewal", "Offer sent", "Contract review"] },
  { name: "Partners", open: ["Introduced", "Evaluating", "Pilot"] },
] as const;
/** Closed for new leads but still served: the spec ingests archived pipelines too. */
const ARCHIVED_PIPELINE = { name: "Webinar leads 2024", open: ["New", "Contacted"] } as const;
const OPEN_COLORS = ["#99ccff", "#ffcc66", "#ff9966", "#cc99ff", "#66cccc"] as const;

/** Validates the sizes: every record must be able to point at what the spec says it refers to. */
function checkSizes(sizes: DatasetSizes): void {
  for (const [name, value] of Object.entries(sizes)) {
    if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`${name} must be a whole number >= 0`);
  }
  if (sizes.pipelines < 1) throw new RangeError("pipelines must be at least 1: every lead sits in a pipeline");
  if (sizes.users < 1) throw new RangeError("users must be at least 1: records name a responsible user");
  if (sizes.events > 0 && sizes.leads === 0) throw new RangeError("events need leads: every event has a lead_id");
  if (sizes.calls > 0 && sizes.leads === 0 && sizes.contacts === 0) {
    throw new RangeError("calls need leads or contacts: a call without either fails its page");
  }
}

export function generateDataset(options: DatasetOptions): Dataset {
  const sizes: DatasetSizes = {
    pipelines: options.pipelines ?? DEFAULT_SIZES.pipelines,
    users: options.users ?? DEFAULT_SIZES.users,
    contacts: options.contacts ?? DEFAULT_SIZES.contacts,
    leads: options.leads ?? DEFAULT_SIZES.leads,
    tasks: options.tasks ?? DEFAULT_SIZES.tasks,
    calls: options.calls ?? DEFAULT_SIZES.calls,
    events: options.events ?? DEFAULT_SIZES.events,
  };
  checkSizes(sizes);
  const now = (options.now ?? new Date()).getTime();
  const rng = seededRandom(options.seed);
  const timeline = new Timeline(rng, now);

  const pipelines = generatePipelines(sizes.pipelines, timeline);
  const users = generateUsers(sizes.users, rng);
  const owners = new Owners(users, rng);
  const contacts = generateContacts(sizes.contacts, rng, timeline, owners);
  const leads = generateLeads(sizes.leads, rng, timeline, owners, pipelines, contacts);
  return {
    seed: options.seed,
    generatedAt: new Date(now).toISOString(),
    revision: 0,
    pipelines,
    users,
    contacts,
    leads,
    tasks: generateTasks(sizes.tasks, { rng, timeline, owners, leads, contacts }),
    calls: generateCalls(sizes.calls, { rng, timeline, owners, leads, contacts }),
    events: generateEvents(sizes.events, rng, timeline, pipelines, users, leads),
  };
}

/** Picks instants in the history and writes them with a random offset. */
class Timeline {
  /** The latest instant a generated record may carry. */
  readonly latest: number;
  constructor(
    private readonly rng: Random,
    readonly now: number,
  ) {
    this.latest = now - QUIET;
  }
  /** A uniform instant in [from, to] (to clamped to `latest`). */
  between(from: number, to: number = this.latest): number {
    const end = Math.min(to, this.latest);
    return from >= end ? end : from + Math.floor(this.rng.next() * (end - from));
  }
  /** An instant up to `span` before `latest`. */
  ago(span: number = HISTORY): number {
    return this.between(this.latest - span);
  }
  /** Half the records in UTC (`Z`), the rest in +02:00 or -05:00: consumers must compare instants. */
  stamp(ms: number): string {
    return formatTimestamp(ms, this.rng.chance(0.5) ? 0 : this.rng.pick(OFFSET_MINUTES.slice(1)));
  }
}

/** Whom records belong to: mostly current staff, sometimes someone who has left, rarely nobody. */
class Owners {
  private readonly active: string[];
  private readonly all: string[];
  constructor(
    users: readonly SourceUser[],
    private readonly rng: Random,
  ) {
    this.all = users.map((user) => user.id);
    this.active = users.filter((user) => user.is_active !== false).map((user) => user.id);
    if (this.active.length === 0) this.active = this.all;
  }
  pick(): string | null {
    if (this.rng.chance(0.02)) return null;
    return this.rng.pick(this.rng.chance(0.9) ? this.active : this.all);
  }
}

function generatePipelines(count: number, timeline: Timeline): SourcePipeline[] {
  let nextStageId = 1001;
  const pipelines: SourcePipeline[] = [];
  for (let i = 1; i <= count; i += 1) {
    // The last of two or more pipelines is the archived one.
    const archived = count >= 2 && i === count;
    const template = archived
      ? ARCHIVED_PIPELINE
      : (ACTIVE_PIPELINES[i - 1] ?? { name: `Pipeline ${i}`, open: ["New", "In progress", "Proposal"] });
    const open: SourceStage[] = template.open.map((name, s) => ({
      id: String(nextStageId++),
      name,
      kind: "open",
      sort: (s + 1) * 10,
      color: OPEN_COLORS[s % OPEN_COLORS.length] as string,
    }));
    const stages: SourceStage[] = [
      ...open,
      { id: WON_STAGE_ID, name: "Closed - won", kind: "won", sort: 10_000, color: "#ccff66" },
      { id: LOST_STAGE_ID, name: "Closed - lost", kind: "lost", sort: 11_000, color: "#d5d8db" },
    ];
    const created = timeline.between(timeline.now - HISTORY - 30 * DAY, timeline.now - HISTORY);
    pipelines.push({
      id: `pipeline-${i}`,
      name: template.name,
      is_archived: archived,
      sort: i,
      stages,
      created_at: timeline.stamp(created),
      updated_at: timeline.stamp(timeline.between(created, created + 7 * DAY)),
    });
  }
  return pipelines;
}

/** `Müller` -> `muller`, `O'Brien` -> `obrien`: e-mail-safe. */
function asciiLower(text: string): string {
  return text
    .normalize("NFD")
    .replace(/[^A-Za-z]/g, "")
    .toLowerCase();
}

function generateUsers(count: number, rng: Random): SourceUser[] {
  const users: SourceUser[] = [];
  const emails = new Set<string>();
  for (let i = 1; i <= count; i += 1) {
    const first = rng.pick(words.FIRST_NAMES);
    const last = rng.pick(words.LAST_NAMES);
    let email = `${asciiLower(first)}.${asciiLower(last)}@reference-crm.example`;
    if (emails.has(email)) email = email.replace("@", `${i}@`);
    emails.add(email);
    const role = i === 1 ? "Head of sales" : i <= 3 ? "Team lead" : rng.pick(words.USER_ROLES);
    // The last two have left the company; every tenth omits is_active (the spec reads that as active).
    const isActive = count > 5 && i > count - 2 ? { is_active: false } : i % 10 === 0 ? {} : { is_active: true };
    users.push({
      id: `user-${i}`,
      name: `${first} ${last}`,
      email,
      role,
      ...isActive,
      ...(rng.chance(0.5) ? { phone: `+1 555 01${String(i).padStart(2, "0")}` } : {}),
    });
  }
  return users;
}

function phoneNumber(rng: Random): string {
  return rng.chance(0.6)
    ? `+1 555 ${rng.int(100, 999)} ${rng.int(1000, 9999)}`
    : `+49 30 ${rng.int(1000, 9999)} ${rng.int(100, 999)}`;
}

function generateContacts(count: number, rng: Random, timeline: Timeline, owners: Owners): SourceContact[] {
  const contacts: SourceContact[] = [];
  for (let i = 1; i <= count; i += 1) {
    const first = rng.pick(words.FIRST_NAMES);
    const last = rng.pick(words.LAST_NAMES);
    const company = rng.pick(words.COMPANIES);
    const created = timeline.ago();
    let customFields: CustomFields | null = null;
    const shape = rng.next();
    if (shape < 0.7) {
      customFields = {
        company,
        industry: rng.pick(words.INDUSTRIES),
        employees: rng.int(2, 5000),
        newsletter: rng.chance(0.4),
      };
    } else if (shape < 0.8) {
      customFields = {}; // an empty map: the service stores it as null
    }
    contacts.push({
      id: `contact-${i}`,
      name: `${first} ${last}`,
      phone: rng.chance(0.95) ? phoneNumber(rng) : null,
      email: rng.chance(0.9) ? `${asciiLower(first)}.${asciiLower(last)}@${asciiLower(company)}.example` : null,
      responsible_user_id: owners.pick(),
      custom_fields: customFields,
      created_at: timeline.stamp(created),
      updated_at: timeline.stamp(timeline.between(created)),
    });
  }
  return contacts;
}

/** A price as most CRMs send it (a number) or as some do (a numeric string, sometimes with cents). */
function leadPrice(rng: Random): number | string {
  const amount = rng.int(10, 1000) * 50;
  if (rng.chance(0.85)) return amount;
  return rng.chance(0.5) ? String(amount) : `${amount}.50`;
}

function leadUtm(rng: Random): SourceUtm {
  return {
    source: rng.pick(words.UTM_SOURCES),
    medium: rng.pick(words.UTM_MEDIUMS),
    campaign: rng.pick(words.UTM_CAMPAIGNS),
    content: rng.chance(0.5) ? `banner_${rng.int(1, 5)}` : null,
    term: rng.chance(0.3) ? "crm software" : null,
  };
}

function contactIdsFor(rng: Random, contacts: readonly SourceContact[]): string[] | null {
  if (contacts.length === 0) return null;
  const shape = rng.next();
  if (shape < 0.05) return null;
  if (shape < 0.1) return [];
  // Most leads have one contact; some several (the service keeps only the first).
  const count = shape < 0.9 ? 1 : rng.int(2, 3);
  return Array.from({ length: count }, () => rng.pick(contacts).id);
}

export function stagesOfKind(pipeline: SourcePipeline, kind: SourceStage["kind"]): SourceStage[] {
  return pipeline.stages.filter((stage) => stage.kind === kind);
}

function generateLeads(
  count: number,
  rng: Random,
  timeline: Timeline,
  owners: Owners,
  pipelines: readonly SourcePipeline[],
  contacts: readonly SourceContact[],
): SourceLead[] {
  const active = pipelines.filter((pipeline) => !pipeline.is_archived);
  const archived = pipelines.filter((pipeline) => pipeline.is_archived);
  const leads: SourceLead[] = [];
  for (let i = 1; i <= count; i += 1) {
    const inArchive = archived.length > 0 && rng.chance(0.15);
    const pipeline = rng.pick(inArchive ? archived : active);
    // An archived pipeline takes no new leads, so everything in it is closed and old.
    const kindRoll = rng.next();
    const kind = inArchive ? (kindRoll < 0.5 ? "won" : "lost") : kindRoll < 0.6 ? "open" : kindRoll < 0.8 ? "won" : "lost";
    const stage = rng.pick(stagesOfKind(pipeline, kind));
    const created = inArchive ? timeline.between(timeline.now - HISTORY, timeline.now - HISTORY / 2) : timeline.ago();
    const updated = timeline.between(created);
    const closed = kind === "open" ? null : timeline.between(created, updated);
    const source = rng.chance(0.9) ? rng.pick(words.LEAD_SOURCES) : null;
    const tracked = (source === "website" || source === "webinar") && rng.chance(0.7);
    leads.push({
      id: `lead-${i}`,
      name: `${rng.pick(words.COMPANIES)}: ${rng.pick(words.PRODUCTS)}`,
      price: leadPrice(rng),
      currency: "EUR",
      pipeline_id: pipeline.id,
      stage_id: stage.id,
      responsible_user_id: owners.pick(),
      contact_ids: contactIdsFor(rng, contacts),
      loss_reason: kind === "lost" && rng.chance(0.9) ? rng.pick(words.LOSS_REASONS) : null,
      source,
      ...(tracked ? { utm: leadUtm(rng) } : {}),
      custom_fields: rng.chance(0.6) ? { budget: rng.pick(["high", "medium", "low"]), seats: rng.int(1, 200) } : null,
      created_at: timeline.stamp(created),
      updated_at: timeline.stamp(updated),
      closed_at: closed === null ? null : timeline.stamp(closed),
      // A few tombstones: deleted in the CRM, still served so the service can soft-delete them.
      is_deleted: rng.chance(0.01),
    });
  }
  return leads;
}

/** Epoch ms of a timestamp this module wrote (always with an offset, so Date.parse reads it exactly). */
const at = (stamp: string): number => Date.parse(stamp);

/** What tasks and calls are generated around: the history, the owners, and the leads and contacts they hang off. */
interface Activity {
  readonly rng: Random;
  readonly timeline: Timeline;
  readonly owners: Owners;
  readonly leads: readonly SourceLead[];
  readonly contacts: readonly SourceContact[];
}

function generateTasks(count: number, { rng, timeline, owners, leads, contacts }: Activity): SourceTask[] {
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

function generateCalls(count: number, { rng, timeline, owners, leads, contacts }: Activity): SourceCall[] {
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

function generateEvents(
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
