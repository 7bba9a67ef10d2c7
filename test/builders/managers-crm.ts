import type { CrmData } from "../support/crm-source";
import { callRecord, contactRecord, eventRecord, leadRecord, pipelineRecord, stageRecord, taskRecord, userRecord, type RawRecord } from "./source-records";

/**
 * A CRM with three managers, as issue 35's tests ask: Anna (her email will
 * match a member's session, case and spaces aside), Boris (linked by the
 * owner), Carla (inactive, her email matches no member); a lead with no
 * responsible user and one whose user /users does not have. Dates sit around
 * MANAGERS_NOW, with records on both sides of the default period's edges.
 */
export const MANAGERS_NOW = "2026-03-31T12:00:00.000Z";
/** The default period at MANAGERS_NOW: the 30 UTC days up to today. */
export const MANAGERS_PERIOD = { from: "2026-03-02", to: "2026-03-31" } as const;

export const ANNA = { id: "u-anna", member: "member-anna", sessionEmail: "  Anna.Smith@Example.COM " } as const;
export const BORIS = { id: "u-boris", member: "member-boris", sessionEmail: "bk@example.org" } as const;
export const CARLA = { id: "u-carla" } as const;

const lead = (id: string, fields: RawRecord) => leadRecord({ id, contact_ids: ["contact-1"], ...fields });

export function managersCrm(): CrmData {
  const bobCalls = Array.from({ length: 10 }, (_, i) =>
    callRecord({ id: `call-boris-${i}`, lead_id: "lead-b1", responsible_user_id: BORIS.id, direction: i % 2 === 0 ? "out" : "in", duration_seconds: i < 2 ? 40 : 0, created_at: `2026-03-2${i % 10}T09:00:00Z`, updated_at: `2026-03-2${i % 10}T09:00:00Z` }),
  );
  return {
    pipelines: [pipelineRecord({ stages: [stageRecord(), stageRecord({ id: "stage-won", name: "Won", kind: "won", sort: 2 }), stageRecord({ id: "stage-lost", name: "Lost", kind: "lost", sort: 3 })] })],
    users: [
      userRecord({ id: ANNA.id, name: "Anna Smith", email: "anna.smith@example.com", role: "MOP" }),
      userRecord({ id: BORIS.id, name: "Boris Klein", email: "boris@example.com", role: "MOP" }),
      userRecord({ id: CARLA.id, name: "Carla Diaz", email: "carla@example.com", role: "MOP", is_active: false }),
    ],
    contacts: [contactRecord()],
    leads: [
      lead("lead-a1", { responsible_user_id: ANNA.id, created_at: "2026-03-05T08:00:00Z", updated_at: "2026-03-05T08:00:00Z" }),
      lead("lead-a2", { responsible_user_id: ANNA.id, stage_id: "stage-won", price: 1000, created_at: "2026-03-01T00:00:00Z", closed_at: "2026-03-31T23:59:59Z", updated_at: "2026-03-31T08:00:00Z" }),
      lead("lead-a3", { responsible_user_id: ANNA.id, stage_id: "stage-won", price: "2500.9", created_at: "2026-02-20T10:00:00Z", closed_at: "2026-03-02T00:00:00Z", updated_at: "2026-03-02T09:00:00Z" }),
      lead("lead-a4", { responsible_user_id: ANNA.id, stage_id: "stage-lost", created_at: "2026-02-10T10:00:00Z", closed_at: "2026-03-15T10:00:00Z", updated_at: "2026-03-15T10:00:00Z" }),
      lead("lead-a5", { responsible_user_id: ANNA.id, stage_id: "stage-won", price: 700, created_at: "2026-03-10T10:00:00Z", closed_at: "2026-04-01T00:00:00Z", updated_at: "2026-03-30T10:00:00Z" }),
      lead("lead-a6", { responsible_user_id: ANNA.id, created_at: "2026-01-01T10:00:00Z", updated_at: "2026-01-01T10:00:00Z" }),
      lead("lead-a7", { responsible_user_id: ANNA.id, stage_id: "stage-won", price: 9999, created_at: "2026-03-03T10:00:00Z", closed_at: "2026-03-04T10:00:00Z", updated_at: "2026-03-04T10:00:00Z", is_deleted: true }),
      lead("lead-b1", { responsible_user_id: BORIS.id, created_at: "2026-03-20T08:00:00Z", updated_at: "2026-03-20T08:00:00Z" }),
      lead("lead-b2", { responsible_user_id: BORIS.id, stage_id: "stage-won", price: 300, created_at: "2026-03-10T08:00:00Z", closed_at: "2026-03-12T09:00:00Z", updated_at: "2026-03-12T09:00:00Z" }),
      lead("lead-b3", { responsible_user_id: BORIS.id, stage_id: "stage-lost", created_at: "2026-02-01T08:00:00Z", closed_at: "2026-03-01T23:59:59Z", updated_at: "2026-03-01T23:59:59Z" }),
      lead("lead-c1", { responsible_user_id: CARLA.id, created_at: "2026-03-01T08:00:00Z", updated_at: "2026-03-01T08:00:00Z" }),
      lead("lead-n1", { responsible_user_id: null, created_at: "2026-03-03T08:00:00Z", updated_at: "2026-03-03T08:00:00Z" }),
      lead("lead-n2", { responsible_user_id: "u-ghost", created_at: "2026-03-04T08:00:00Z", updated_at: "2026-03-04T08:00:00Z" }),
    ],
    tasks: [
      taskRecord({ id: "task-a1", lead_id: "lead-a1", responsible_user_id: ANNA.id, due_at: "2026-03-10T00:00:00Z", updated_at: "2026-03-05T09:00:00Z" }),
      taskRecord({ id: "task-a2", lead_id: "lead-a2", responsible_user_id: ANNA.id, is_completed: true, due_at: "2026-03-09T00:00:00Z", completed_at: "2026-03-08T10:00:00Z", updated_at: "2026-03-08T10:00:00Z" }),
      taskRecord({ id: "task-a3", lead_id: "lead-a1", responsible_user_id: ANNA.id, is_completed: true, due_at: "2026-03-19T00:00:00Z", completed_at: "2026-03-20T10:00:00Z", updated_at: "2026-03-20T10:00:00Z" }),
      taskRecord({ id: "task-b1", lead_id: "lead-b1", responsible_user_id: BORIS.id, due_at: "2026-04-10T00:00:00Z", updated_at: "2026-03-20T09:00:00Z" }),
      // Due exactly at MANAGERS_NOW: not before it, so not overdue yet.
      taskRecord({ id: "task-b2", lead_id: "lead-b1", responsible_user_id: BORIS.id, due_at: MANAGERS_NOW, updated_at: "2026-03-20T09:00:00Z" }),
      taskRecord({ id: "task-c1", lead_id: null, contact_id: "contact-1", responsible_user_id: CARLA.id, is_completed: true, due_at: null, completed_at: "2026-03-15T10:00:00Z", updated_at: "2026-03-15T10:00:00Z" }),
      taskRecord({ id: "task-n1", lead_id: null, contact_id: "contact-1", responsible_user_id: null, due_at: "2026-03-01T00:00:00Z", updated_at: "2026-03-01T00:00:00Z" }),
    ],
    calls: [
      callRecord({ id: "call-a1", lead_id: "lead-a1", responsible_user_id: ANNA.id, direction: "out", duration_seconds: 95, created_at: "2026-03-06T10:00:00Z", updated_at: "2026-03-06T10:00:00Z" }),
      callRecord({ id: "call-a2", lead_id: "lead-a1", responsible_user_id: ANNA.id, direction: "in", duration_seconds: 0, created_at: "2026-03-07T10:00:00Z", updated_at: "2026-03-07T10:00:00Z" }),
      callRecord({ id: "call-a3", lead_id: "lead-a1", responsible_user_id: ANNA.id, direction: "in", duration_seconds: 30, created_at: "2026-02-27T10:00:00Z", updated_at: "2026-02-27T10:00:00Z" }),
      ...bobCalls,
      callRecord({ id: "call-n1", lead_id: null, contact_id: "contact-1", responsible_user_id: "u-ghost", direction: "out", duration_seconds: 10, created_at: "2026-03-22T10:00:00Z", updated_at: "2026-03-22T10:00:00Z" }),
    ],
    events: [
      eventRecord({ id: "event-c1", lead_id: "lead-c1", created_at: "2026-03-25T10:00:00Z", updated_at: "2026-03-25T10:00:00Z" }),
      eventRecord({ id: "event-a6", lead_id: "lead-a6", created_at: "2025-01-01T10:00:00Z", updated_at: "2025-01-01T10:00:00Z" }),
    ],
  };
}
