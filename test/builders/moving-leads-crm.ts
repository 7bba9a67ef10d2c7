import type { CrmData } from "../support/crm-source";
import { contactRecord, leadRecord, pipelineRecord, stageRecord, userRecord } from "./source-records";

/**
 * A CRM whose leads move between stages from one sync to the next (`sync` 0, 1, 2): every lead enters New in
 * January (its created_at); in February some move one stage per sync, some jump to won, some go on to lost, some
 * never move. A lead's updated_at advances whenever it moves; one that does not move keeps its first.
 */
export const MOVING_STAGES = [
  stageRecord({ id: "mv-new", name: "New", kind: "open", sort: 1 }),
  stageRecord({ id: "mv-qualified", name: "Qualified", kind: "open", sort: 2 }),
  stageRecord({ id: "mv-proposal", name: "Proposal", kind: "open", sort: 3 }),
  stageRecord({ id: "mv-won", name: "Won", kind: "won", sort: 4 }),
  stageRecord({ id: "mv-lost", name: "Lost", kind: "lost", sort: 5 }),
];
export const MOVING_LEADS = 12;

/** The stage lead i stands in at sync n. */
export function movingStageAt(lead: number, sync: number): string {
  if (lead % 4 === 0) return "mv-new"; // never moves: waits longest in New
  if (lead % 4 === 1) return ["mv-new", "mv-qualified", "mv-proposal"][Math.min(sync, 2)]!; // one step per sync, then waits in Proposal
  if (lead % 4 === 2) return sync === 0 ? "mv-new" : "mv-won"; // jumps to won
  return ["mv-new", "mv-qualified", "mv-lost"][Math.min(sync, 2)]!; // qualified, then lost
}

const created = (lead: number) => `2026-01-${String(1 + lead).padStart(2, "0")}T08:00:00.000Z`;
/** Moves at sync n are dated 5n days into February, at a different hour per lead, so the times in a stage differ. */
const updated = (lead: number, sync: number) => {
  let last = 0;
  for (let n = 1; n <= sync; n += 1) if (movingStageAt(lead, n) !== movingStageAt(lead, n - 1)) last = n;
  return last === 0 ? `2026-01-${String(1 + lead).padStart(2, "0")}T09:00:00.000Z` : `2026-02-${String(1 + 5 * last).padStart(2, "0")}T${String(lead).padStart(2, "0")}:00:00.000Z`;
};

/** Lead 4 has no name (the spec allows null: the console shows its id); lead 8's is the longest allowed, 255 characters without a space. */
export const movingLeadName = (lead: number): string | null => (lead === 4 ? null : lead === 8 ? "W".repeat(255) : `Moving deal ${lead}`);

/** The CRM as it stands at sync n, its leads in updated_at order (as an incremental listing sends them). */
export function movingLeadsCrm(sync: number): CrmData {
  return {
    pipelines: [pipelineRecord({ id: "mv-pipeline", name: "Moves", stages: MOVING_STAGES })],
    users: [userRecord()],
    contacts: [contactRecord()],
    leads: Array.from({ length: MOVING_LEADS }, (_, i) =>
      leadRecord({ id: `mv-lead-${i}`, name: movingLeadName(i), pipeline_id: "mv-pipeline", stage_id: movingStageAt(i, sync), created_at: created(i), updated_at: updated(i, sync) }),
    ).sort((a, b) => String(a["updated_at"]).localeCompare(String(b["updated_at"]))),
  };
}

/** Entries per calendar month after syncs 0..last, by the rule above: every lead's first stage in January, each move in February. */
export function movingEntriesPerMonth(last: number): Record<string, number> {
  let moves = 0;
  for (let i = 0; i < MOVING_LEADS; i += 1) for (let n = 1; n <= last; n += 1) if (movingStageAt(i, n) !== movingStageAt(i, n - 1)) moves += 1;
  return { "2026-01": MOVING_LEADS, "2026-02": moves };
}
