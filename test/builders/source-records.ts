import type { SyncEntity } from "../../lambdas/domain/core/entities";

/**
 * Valid raw source records (JSON as a source API would send it), one builder
 * per resource. Overrides merge shallowly; an `undefined` override deletes the key.
 */

export type RawRecord = Record<string, unknown>;

function build(base: RawRecord, overrides: RawRecord = {}): RawRecord {
  const record: RawRecord = { ...base, ...overrides };
  for (const [key, value] of Object.entries(overrides)) {
    if (value === undefined) delete record[key];
  }
  return record;
}

export function stageRecord(overrides?: RawRecord): RawRecord {
  return build({ id: "stage-new", name: "New", kind: "open", sort: 1, color: "#3366ff" }, overrides);
}

export function pipelineRecord(overrides?: RawRecord): RawRecord {
  return build(
    {
      id: "pipeline-1",
      name: "Sales",
      is_archived: false,
      sort: 1,
      stages: [
        stageRecord(),
        stageRecord({ id: "stage-won", name: "Won", kind: "won", sort: 2, color: "#00aa00" }),
        stageRecord({ id: "stage-lost", name: "Lost", kind: "lost", sort: 3, color: "#aa0000" }),
      ],
      created_at: "2026-01-05T09:00:00Z",
      updated_at: "2026-01-06T09:00:00Z",
    },
    overrides,
  );
}

export function userRecord(overrides?: RawRecord): RawRecord {
  return build(
    { id: "user-1", name: "Anna Smith", email: "anna@example.com", role: "Sales manager", is_active: true },
    overrides,
  );
}

export function contactRecord(overrides?: RawRecord): RawRecord {
  return build(
    {
      id: "contact-1",
      name: "John Doe",
      phone: "+1 555 0100",
      email: "john@example.com",
      responsible_user_id: "user-1",
      custom_fields: { industry: "Retail", employees: 40 },
      created_at: "2026-02-01T08:00:00Z",
      updated_at: "2026-02-02T08:00:00Z",
    },
    overrides,
  );
}

export function leadRecord(overrides?: RawRecord): RawRecord {
  return build(
    {
      id: "lead-1",
      name: "Website redesign",
      price: 1500,
      pipeline_id: "pipeline-1",
      stage_id: "stage-new",
      responsible_user_id: "user-1",
      contact_ids: ["contact-1"],
      loss_reason: null,
      source: "website",
      utm: { source: "google", medium: "cpc", campaign: "spring", content: "banner", term: "crm" },
      custom_fields: { budget: "high" },
      created_at: "2026-02-01T08:00:00Z",
      updated_at: "2026-02-03T08:00:00Z",
      closed_at: null,
      is_deleted: false,
    },
    overrides,
  );
}

export function taskRecord(overrides?: RawRecord): RawRecord {
  return build(
    {
      id: "task-1",
      lead_id: "lead-1",
      contact_id: null,
      responsible_user_id: "user-1",
      text: "Call back",
      is_completed: false,
      due_at: "2026-02-10T12:00:00Z",
      completed_at: null,
      updated_at: "2026-02-04T08:00:00Z",
    },
    overrides,
  );
}

export function callRecord(overrides?: RawRecord): RawRecord {
  return build(
    {
      id: "call-1",
      lead_id: "lead-1",
      contact_id: null,
      responsible_user_id: "user-1",
      direction: "out",
      duration_seconds: 95,
      phone: "+1 555 0100",
      created_at: "2026-02-04T10:00:00Z",
      updated_at: "2026-02-04T10:02:00Z",
    },
    overrides,
  );
}

export function eventRecord(overrides?: RawRecord): RawRecord {
  return build(
    {
      id: "event-1",
      lead_id: "lead-1",
      type: "stage_changed",
      value_before: "stage-new",
      value_after: "stage-won",
      created_at: "2026-02-05T10:00:00Z",
      updated_at: "2026-02-05T10:00:00Z",
    },
    overrides,
  );
}

const BUILDERS: Readonly<Record<SyncEntity, (overrides?: RawRecord) => RawRecord>> = {
  pipelines: pipelineRecord,
  users: userRecord,
  contacts: contactRecord,
  leads: leadRecord,
  tasks: taskRecord,
  calls: callRecord,
  events: eventRecord,
};

/**
 * `count` records of an entity numbered as the builders name them (contact-0,
 * contact-1, …, from `first`); record i takes `overridesOf(i)`.
 */
export function numberedRecords(entity: SyncEntity, count: number, overridesOf: (i: number) => RawRecord, first = 0): RawRecord[] {
  const singular = entity.slice(0, -1);
  return Array.from({ length: count }, (_, i) => BUILDERS[entity]({ id: `${singular}-${first + i}`, ...overridesOf(i) }));
}
