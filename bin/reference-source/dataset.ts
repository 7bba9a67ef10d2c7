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
  SourceContact,
  SourceLead,
  SourcePipeline,
  SourceStage,
  SourceUser,
  SourceUtm,
} from "./records";
import { generateCalls, generateEvents, generateTasks, phoneNumber } from "./activity";
import { DAY, HISTORY, Owners, Timeline } from "./history";
import { stagesOfKind } from "./stages-of-kind";
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
