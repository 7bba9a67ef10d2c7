/**
 * The seven endpoints of the spec's source API and what each one serves:
 * which records, whether it honours updated_since, and which timestamp it
 * compares and orders by.
 */
import type { Dataset, SourceRecord } from "./records";

export type EndpointName = "pipelines" | "users" | "contacts" | "leads" | "tasks" | "calls" | "events";

export interface Endpoint {
  readonly name: EndpointName;
  /** /tasks, /calls and /events may be missing (404) without failing a sync. */
  readonly optional: boolean;
  /** Filtered by updated_since and ordered by `comparedAt`; /pipelines and /users are always served whole. */
  readonly incremental: boolean;
  readonly records: (dataset: Dataset) => readonly SourceRecord[];
}

/**
 * The instant the source's own store keeps for a record it renders with an
 * updated_at that does not parse (drift.ts): a real CRM filters and orders by
 * its column, not by the text it sends. Records are replaced, never edited,
 * so the entry goes with the record object.
 */
export const STORED_INSTANT = new WeakMap<object, number>();

/** The instant an incremental record is compared and ordered by: updated_at; for events updated_at if sent, else created_at. */
export function comparedAt(record: SourceRecord): number {
  const kept = STORED_INSTANT.get(record);
  if (kept !== undefined) return kept;
  const stamp = (record as { updated_at?: string }).updated_at ?? (record as { created_at?: string }).created_at;
  // Every timestamp here was written by timestamps.ts, always with an offset, so Date.parse reads it exactly.
  return stamp === undefined ? Number.NEGATIVE_INFINITY : Date.parse(stamp);
}

const endpoint = (name: EndpointName, optional: boolean, incremental: boolean): Endpoint => ({
  name,
  optional,
  incremental,
  records: (dataset) => dataset[name],
});

export const ENDPOINTS: ReadonlyMap<string, Endpoint> = new Map(
  [
    endpoint("pipelines", false, false),
    endpoint("users", false, false),
    endpoint("contacts", false, true),
    endpoint("leads", false, true),
    endpoint("tasks", true, true),
    endpoint("calls", true, true),
    endpoint("events", true, true),
  ].map((e) => [`/${e.name}`, e]),
);
