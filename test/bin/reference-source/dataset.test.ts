import type * as v from "valibot";
import { describe, expect, test } from "vitest";
import { DEFAULT_SIZES, generateDataset } from "../../../bin/reference-source/dataset";
import type { Dataset, SourceLead, SourceRecord } from "../../../bin/reference-source/records";
import { CallSchema } from "../../../lambdas/domain/records/call";
import { ContactSchema } from "../../../lambdas/domain/records/contact";
import { EventSchema } from "../../../lambdas/domain/records/event";
import { LeadSchema } from "../../../lambdas/domain/records/lead";
import { parseRecord } from "../../../lambdas/domain/records/parse-record";
import { PipelineSchema } from "../../../lambdas/domain/records/pipeline";
import { TaskSchema } from "../../../lambdas/domain/records/task";
import { UserSchema } from "../../../lambdas/domain/records/user";

const NOW = new Date("2026-06-01T12:00:00Z");
const dataset = generateDataset({ seed: 42, now: NOW });

const SCHEMAS: Readonly<Record<keyof typeof DEFAULT_SIZES, v.GenericSchema>> = {
  pipelines: PipelineSchema,
  users: UserSchema,
  contacts: ContactSchema,
  leads: LeadSchema,
  tasks: TaskSchema,
  calls: CallSchema,
  events: EventSchema,
};
const ENTITIES = Object.keys(SCHEMAS) as (keyof typeof SCHEMAS)[];

// The spec's timestamp with an explicit offset: Z, +HH:MM or -HH:MM.
const WITH_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(Z|[+-]\d{2}:\d{2})$/;
const DAY = 86_400_000;

function stageKindOf(data: Dataset, lead: SourceLead): string | undefined {
  return data.pipelines.find((p) => p.id === lead.pipeline_id)?.stages.find((s) => s.id === lead.stage_id)?.kind;
}

function timestampsOf(record: SourceRecord): string[] {
  return Object.entries(record)
    .filter(([key, value]) => key.endsWith("_at") && typeof value === "string")
    .map(([, value]) => value as string);
}

describe("reference dataset", () => {
  test("conventions: every record of every endpoint passes the service's own validation (parseRecord)", () => {
    for (const entity of ENTITIES) {
      dataset[entity].forEach((record, index) => {
        expect(() => parseRecord(SCHEMAS[entity], record, index), `${entity} ${record.id}`).not.toThrow();
      });
    }
  });

  test("sizes: the default counts (3 pipelines, 30 users, 5000 contacts and leads, 3000 tasks and calls, 8000 events)", () => {
    for (const entity of ENTITIES) expect(dataset[entity], entity).toHaveLength(DEFAULT_SIZES[entity]);
    const small = generateDataset({ seed: 1, now: NOW, users: 4, contacts: 10, leads: 9, tasks: 8, calls: 7, events: 6, pipelines: 2 });
    expect(ENTITIES.map((entity) => small[entity].length)).toEqual([2, 4, 10, 9, 8, 7, 6]);
  });

  test("id: a non-empty string, unique per endpoint", () => {
    for (const entity of ENTITIES) {
      const ids = dataset[entity].map((record) => record.id);
      expect(ids.every((id) => typeof id === "string" && id.length > 0 && id.length <= 255), entity).toBe(true);
      expect(new Set(ids).size, entity).toBe(ids.length);
    }
  });

  test("timestamps: ISO-8601 with an explicit offset, Z, +02:00 and -05:00 all used, never after now", () => {
    const offsets = new Set<string>();
    for (const entity of ENTITIES) {
      for (const record of dataset[entity]) {
        for (const stamp of timestampsOf(record)) {
          expect(stamp, `${entity} ${record.id}`).toMatch(WITH_OFFSET);
          offsets.add(stamp.slice(19));
          if (entity !== "tasks") expect(Date.parse(stamp)).toBeLessThan(NOW.getTime()); // due_at may lie ahead
        }
      }
    }
    expect([...offsets].sort()).toEqual(["+02:00", "-05:00", "Z"]);
  });

  test("updated_at: spread over the months before now, never before created_at", () => {
    for (const entity of ["contacts", "leads", "calls"] as const) {
      const updated = dataset[entity].map((record) => Date.parse(record.updated_at));
      expect(Math.min(...updated), entity).toBeLessThan(NOW.getTime() - 90 * DAY);
      expect(Math.max(...updated), entity).toBeGreaterThan(NOW.getTime() - 7 * DAY);
      for (const record of dataset[entity]) {
        expect(Date.parse(record.created_at), `${entity} ${record.id}`).toBeLessThanOrEqual(Date.parse(record.updated_at));
      }
    }
  });

  test("pipelines: 4 to 6 stages each with open, won and lost kinds; one archived pipeline", () => {
    for (const pipeline of dataset.pipelines) {
      expect(pipeline.stages.length).toBeGreaterThanOrEqual(4);
      expect(pipeline.stages.length).toBeLessThanOrEqual(6);
      expect(new Set(pipeline.stages.map((stage) => stage.kind))).toEqual(new Set(["open", "won", "lost"]));
    }
    expect(dataset.pipelines.filter((pipeline) => pipeline.is_archived)).toHaveLength(1);
  });

  test("users: tens of them, some inactive, some without is_active (read as active)", () => {
    expect(dataset.users.some((user) => user.is_active === false)).toBe(true);
    expect(dataset.users.some((user) => !("is_active" in user))).toBe(true);
  });

  test("references: responsible users, contacts, stages and leads all point at records that exist", () => {
    const ids = (entity: keyof Dataset & keyof typeof SCHEMAS) => new Set(dataset[entity].map((record) => record.id));
    const [users, contacts, leads] = [ids("users"), ids("contacts"), ids("leads")];
    for (const record of [...dataset.contacts, ...dataset.leads, ...dataset.tasks, ...dataset.calls]) {
      if (record.responsible_user_id !== null) expect(users.has(record.responsible_user_id)).toBe(true);
    }
    for (const lead of dataset.leads) {
      expect(stageKindOf(dataset, lead), lead.id).toBeDefined();
      for (const contact of lead.contact_ids ?? []) expect(contacts.has(contact)).toBe(true);
    }
    for (const record of [...dataset.tasks, ...dataset.calls]) {
      if (record.lead_id) expect(leads.has(record.lead_id)).toBe(true);
      if (record.contact_id) expect(contacts.has(record.contact_id)).toBe(true);
    }
    for (const event of dataset.events) expect(leads.has(event.lead_id)).toBe(true);
  });

  test("leads: loss_reason only in lost stages (a handful of distinct texts), closed_at only when won or lost", () => {
    const reasons = new Set<string>();
    for (const lead of dataset.leads) {
      const kind = stageKindOf(dataset, lead);
      if (lead.loss_reason !== null) {
        expect(kind, lead.id).toBe("lost");
        reasons.add(lead.loss_reason);
      }
      expect(lead.closed_at === null, lead.id).toBe(kind === "open");
    }
    expect(reasons.size).toBeGreaterThanOrEqual(3);
    expect(reasons.size).toBeLessThanOrEqual(10);
    const kinds = new Set(dataset.leads.map((lead) => stageKindOf(dataset, lead)));
    expect(kinds).toEqual(new Set(["open", "won", "lost"]));
  });

  test("leads: prices as numbers and numeric strings, utm on some, custom_fields, contact_ids, a few tombstones", () => {
    const { leads } = dataset;
    expect(leads.some((lead) => typeof lead.price === "string")).toBe(true);
    expect(leads.some((lead) => typeof lead.price === "number")).toBe(true);
    const withUtm = leads.filter((lead) => lead.utm !== undefined).length;
    expect(withUtm).toBeGreaterThan(0);
    expect(withUtm).toBeLessThan(leads.length);
    expect(leads.some((lead) => lead.custom_fields !== null)).toBe(true);
    expect(leads.some((lead) => (lead.contact_ids?.length ?? 0) > 1)).toBe(true);
    const tombstones = leads.filter((lead) => lead.is_deleted).length;
    expect(tombstones).toBeGreaterThan(0);
    expect(tombstones).toBeLessThan(leads.length * 0.05);
  });

  test("tasks: some overdue (open, due in the past), some due ahead, some completed with completed_at", () => {
    const now = NOW.getTime();
    const open = dataset.tasks.filter((task) => !task.is_completed);
    expect(open.some((task) => Date.parse(task.due_at) < now)).toBe(true);
    expect(open.some((task) => Date.parse(task.due_at) > now)).toBe(true);
    const completed = dataset.tasks.filter((task) => task.is_completed);
    expect(completed.length).toBeGreaterThan(0);
    expect(completed.every((task) => task.completed_at !== null)).toBe(true);
    expect(open.every((task) => task.completed_at === null)).toBe(true);
  });

  test("calls: direction in and out, whole-number durations (0 when missed), a few linked to a contact only", () => {
    expect(new Set(dataset.calls.map((call) => call.direction))).toEqual(new Set(["in", "out"]));
    expect(dataset.calls.every((call) => Number.isInteger(call.duration_seconds))).toBe(true);
    expect(dataset.calls.some((call) => call.duration_seconds === 0)).toBe(true);
    const contactOnly = dataset.calls.filter((call) => !("lead_id" in call));
    expect(contactOnly.length).toBeGreaterThan(0);
    expect(contactOnly.every((call) => call.contact_id !== null)).toBe(true);
  });

  test("events: stage_changed, note_added and more; scalar, object and array values; updated_at on some only", () => {
    const { events } = dataset;
    const types = new Set(events.map((event) => event.type));
    expect(types).toContain("stage_changed");
    expect(types).toContain("note_added");
    const values = events.flatMap((event) => [event.value_before, event.value_after]);
    expect(values.some((value) => typeof value === "string" || typeof value === "number")).toBe(true);
    expect(values.some((value) => typeof value === "object" && value !== null && !Array.isArray(value))).toBe(true);
    expect(values.some((value) => Array.isArray(value))).toBe(true);
    expect(events.some((event) => !("value_before" in event))).toBe(true);
    const edited = events.filter((event) => event.updated_at !== undefined);
    expect(edited.length).toBeGreaterThan(0);
    expect(edited.length).toBeLessThan(events.length / 2);
    for (const event of edited) expect(Date.parse(event.updated_at as string)).toBeGreaterThanOrEqual(Date.parse(event.created_at));
  });

  test("determinism: the same seed and now give the same data; another seed gives other data", () => {
    const again = generateDataset({ seed: 42, now: NOW });
    expect(JSON.stringify(again)).toBe(JSON.stringify(dataset));
    const other = generateDataset({ seed: 43, now: NOW });
    expect(JSON.stringify(other.leads)).not.toBe(JSON.stringify(dataset.leads));
  });

  test("sizes the spec cannot honour are refused: events without leads, calls with nothing to link to", () => {
    expect(() => generateDataset({ seed: 1, leads: 0 })).toThrow(RangeError);
    expect(() => generateDataset({ seed: 1, leads: 0, contacts: 0, events: 0 })).toThrow(/calls need leads or contacts/);
    expect(() => generateDataset({ seed: 1, users: 0 })).toThrow(/users/);
    expect(() => generateDataset({ seed: 1, leads: 0, events: 0, tasks: 0 }).calls.length).not.toThrow();
  });
});
