/**
 * "Drifting": what makes records drop out of incremental sync without an
 * error (issue 22), applied to a dataset in place after its first sync. Each
 * is something the spec allows or cannot prevent:
 *
 *  - committed late: a new lead, and a change to an existing one, whose
 *    updated_at is older than the watermark the service already passed;
 *  - a change that does not advance updated_at (a contact's phone);
 *  - an updated_at that does not parse (a task's; the source still filters it
 *    by the instant its store keeps: STORED_INSTANT);
 *  - a task linked to nothing (neither lead_id nor contact_id);
 *  - a lead the source no longer returns (gone from its table: omission never deletes).
 *
 * Deterministic: the records touched are picked by position, so a test knows
 * each one's id. Records are replaced, never edited (as mutations.ts does).
 */
import { STORED_INSTANT } from "./endpoints";
import type { Dataset, SourceLead, SourceTask } from "./records";
import { formatTimestamp } from "./timestamps";

export interface DriftSummary {
  /** New leads committed with an updated_at below the watermark: an incremental sync never asks for them. */
  readonly lateLeads: readonly string[];
  /** An existing lead changed, its new updated_at still below the watermark. */
  readonly lateChangedLead: string;
  /** A contact changed without its updated_at moving. */
  readonly unadvancedContact: string;
  /** A task changed with an updated_at that does not parse (`UNPARSEABLE_UPDATED_AT`). */
  readonly unparseableTask: string;
  /** A new task with neither lead_id nor contact_id. */
  readonly unlinkedTask: string;
  /** A lead the source no longer returns. */
  readonly vanishedLead: string;
}

export const UNPARSEABLE_UPDATED_AT = "last Tuesday";

/** Seconds below the oldest change of the dataset at which late commits are stamped. */
const LATE_BY_MS = 3_600_000;

export function drift(dataset: Dataset, now: Date): DriftSummary {
  const byUpdatedAt = [...dataset.leads].filter((lead) => !lead.is_deleted).sort((a, b) => Date.parse(a.updated_at) - Date.parse(b.updated_at));
  const oldest = byUpdatedAt[0];
  const lateChanged = byUpdatedAt[1];
  const vanished = byUpdatedAt[2];
  const contact = dataset.contacts[0];
  const task = dataset.tasks[0];
  if (oldest === undefined || lateChanged === undefined || vanished === undefined || contact === undefined || task === undefined) {
    throw new RangeError("drift needs at least 3 leads, 1 contact and 1 task");
  }
  // Committed late: stamped an hour before the oldest change, far below any watermark.
  const lateStamp = formatTimestamp(Date.parse(oldest.updated_at) - LATE_BY_MS, 0);
  const lateLeads = ["lead-late-1", "lead-late-2"].map((id, index): SourceLead => ({ ...oldest, id, name: `Late commit ${index + 1}`, is_deleted: false, created_at: lateStamp, updated_at: lateStamp }));
  dataset.leads.push(...lateLeads);
  const lateIndex = dataset.leads.indexOf(lateChanged);
  dataset.leads[lateIndex] = { ...lateChanged, name: `${lateChanged.name} (renamed late)`, updated_at: formatTimestamp(Date.parse(lateChanged.updated_at) + 1000, 0) };

  dataset.contacts[0] = { ...contact, phone: "+1 555 000 0000" };

  const broken: SourceTask = { ...task, text: `${task.text} (edited)`, updated_at: UNPARSEABLE_UPDATED_AT };
  STORED_INSTANT.set(broken, Math.floor(now.getTime() / 1000) * 1000);
  dataset.tasks[0] = broken;
  const unlinked: SourceTask = { ...task, id: "task-unlinked-1", lead_id: null, contact_id: null, text: "Call back (linked to nothing)", updated_at: formatTimestamp(now.getTime(), 0) };
  dataset.tasks.push(unlinked);

  dataset.leads.splice(dataset.leads.indexOf(vanished), 1);
  dataset.revision += 1;
  return {
    lateLeads: lateLeads.map((lead) => lead.id),
    lateChangedLead: lateChanged.id,
    unadvancedContact: contact.id,
    unparseableTask: broken.id,
    unlinkedTask: unlinked.id,
    vanishedLead: vanished.id,
  };
}
