import type { StageKind } from "../../lambdas/domain/core/entities";
import type { CrmData } from "../support/crm-source";
import {
  callRecord,
  contactRecord,
  eventRecord,
  leadRecord,
  pipelineRecord,
  stageRecord,
  taskRecord,
  userRecord,
  type RawRecord,
} from "./source-records";

/**
 * The small CRM the sync tests run against, and the pieces to grow it: short
 * ids (p1, u1, c0, l0, t1, k1, e1) and every timestamp a minute after
 * 2026-03-01T00:00:00Z, so a test reads its records' order at a glance.
 */

/** 2026-03-01T00:00:00Z plus `minute` minutes, in toISOString form. */
export const minuteStamp = (minute: number): string => new Date(Date.UTC(2026, 2, 1, 0, minute)).toISOString();

/** Pipeline p1 with one stage of each kind given; a stage's id is its kind. */
export function smallPipeline(...kinds: StageKind[]): RawRecord {
  return pipelineRecord({ id: "p1", stages: kinds.map((kind) => stageRecord({ id: kind, kind })) });
}

/** Contacts c{from}… in ascending order: contact n changed at minute `minuteOf(n)`. */
export function smallContacts(count: number, from = 0, minuteOf = (n: number) => n): RawRecord[] {
  return Array.from({ length: count }, (_, i) => contactRecord({ id: `c${from + i}`, updated_at: minuteStamp(minuteOf(from + i)) }));
}

/** Leads l0… on p1, open unless `overridesOf` says otherwise: lead i changed at minute i. */
export function smallLeads(count: number, overridesOf: (i: number) => RawRecord = () => ({})): RawRecord[] {
  return Array.from({ length: count }, (_, i) =>
    leadRecord({ id: `l${i}`, pipeline_id: "p1", stage_id: "open", updated_at: minuteStamp(i), ...overridesOf(i) }),
  );
}

/**
 * A small, valid CRM: every endpoint implemented, one page each. Pipeline p1
 * (open, won), users u1 and u2, contacts c1 and c2, leads l1 (won) and l2
 * (open), and task t1, call k1 and event e1 on l1.
 */
export function smallCrm(): Required<CrmData> {
  return {
    pipelines: [smallPipeline("open", "won")],
    users: [userRecord({ id: "u1" }), userRecord({ id: "u2" })],
    contacts: smallContacts(2, 1),
    leads: [
      leadRecord({ id: "l1", pipeline_id: "p1", stage_id: "won", updated_at: minuteStamp(1) }),
      leadRecord({ id: "l2", pipeline_id: "p1", stage_id: "open", updated_at: minuteStamp(2) }),
    ],
    tasks: [taskRecord({ id: "t1", lead_id: "l1", updated_at: minuteStamp(1) })],
    calls: [callRecord({ id: "k1", lead_id: "l1", updated_at: minuteStamp(1) })],
    events: [eventRecord({ id: "e1", lead_id: "l1", created_at: minuteStamp(1), updated_at: minuteStamp(1) })],
  };
}
