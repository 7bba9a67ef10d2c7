import { changedSince } from "../../../../bin/reference-source/paging";
import { SYNC_ENTITIES, type Collection, type StageKind, type SummaryEntity, type SyncEntity } from "../../../../lambdas/domain/core/entities";
import { PAGE_SIZE } from "../../../../lambdas/domain/core/limits";
import { entityDefinition } from "../../../../lambdas/domain/source-contract/entity-catalog";
import { preparePage } from "../../../../lambdas/domain/ingestion/prepare-page";
import { updatedSince } from "../../../../lambdas/domain/sync/updated-since";
import { numberedRecords, pipelineRecord, stageRecord, userRecord, type RawRecord } from "../../../builders/source-records";
import type { CrmData } from "../../../support/crm-source";

/**
 * The source's dataset for the crash-consistency suite, and what the service
 * must hold and report for it. Small (a few pages per entity) but shaped so that
 * every crash point exists: contacts and leads span pages, the first leads page
 * derives 100 distinct loss reasons (so its write needs three transactions), and
 * every seventh lead is a tombstone.
 */

export const CRASH_SYNC_SINCE = "2026-01-01T00:00:00.000Z";
const BASE = Date.parse("2026-03-01T00:00:00Z");
/** Record i of an entity changed at BASE + i minutes (+ an entity offset): ascending, distinct, after sync_since. */
const stamp = (entityOffset: number, i: number) => new Date(BASE + entityOffset * 86_400_000 + i * 60_000).toISOString();

export const CRASH_COUNTS = { contacts: 150, leads: 250, tasks: 30, calls: 20, events: 20 } as const;

export function crashDataset(): CrmData {
  const pipelines = [
    pipelineRecord(),
    pipelineRecord({
      id: "pipeline-2",
      name: "Renewals",
      sort: 2,
      stages: [
        stageRecord({ id: "r-open", name: "Open", kind: "open", sort: 1 }),
        stageRecord({ id: "r-won", name: "Renewed", kind: "won", sort: 2 }),
        stageRecord({ id: "r-lost", name: "Churned", kind: "lost", sort: 3 }),
      ],
    }),
  ];
  const users = [userRecord(), userRecord({ id: "user-2", name: "Ben Jones", email: "ben@example.com" }), userRecord({ id: "user-3", name: "Cleo Park", email: "cleo@example.com" })];
  const contacts = numberedRecords("contacts", CRASH_COUNTS.contacts, (i) => ({ name: `Contact ${i}`, email: `c${i}@example.com`, updated_at: stamp(0, i) }));
  const leads = numberedRecords("leads", CRASH_COUNTS.leads, (i) => ({
    name: `Lead ${i}`,
    contact_ids: [`contact-${i % CRASH_COUNTS.contacts}`],
    // The first page: 100 lost leads with 100 different reasons -> 200 records + the watermark = 3 transactions.
    ...(i < PAGE_SIZE ? { stage_id: "stage-lost", loss_reason: `reason ${i}`, closed_at: stamp(1, i) } : {}),
    is_deleted: i % 7 === 3,
    updated_at: stamp(1, i),
  }));
  const tasks = numberedRecords("tasks", CRASH_COUNTS.tasks, (i) => ({ lead_id: `lead-${i}`, updated_at: stamp(2, i) }));
  const calls = numberedRecords("calls", CRASH_COUNTS.calls, (i) => ({ lead_id: `lead-${i}`, created_at: stamp(3, i), updated_at: stamp(3, i) }));
  const events = numberedRecords("events", CRASH_COUNTS.events, (i) => ({ lead_id: `lead-${i}`, created_at: stamp(4, i), updated_at: stamp(4, i) }));
  return { pipelines, users, contacts, leads, tasks, calls, events };
}

function stageKinds(data: CrmData): Map<string, Map<string, StageKind>> {
  const kinds = new Map<string, Map<string, StageKind>>();
  for (const pipeline of data.pipelines ?? []) {
    const stages = new Map<string, StageKind>();
    for (const stage of pipeline["stages"] as RawRecord[]) stages.set(String(stage["id"]), stage["kind"] as StageKind);
    kinds.set(String(pipeline["id"]), stages);
  }
  return kinds;
}

/** The records the table must hold per collection: the source's dataset as the service's own mapping stores it. */
export function expectedRecords(data: CrmData): Map<Collection, Record<string, unknown>[]> {
  const kinds = stageKinds(data);
  const byCollection = new Map<Collection, Map<string, Record<string, unknown>>>();
  for (const entity of SYNC_ENTITIES) {
    const prepared = preparePage({ entity, page: 1, data: data[entity] ?? [], previous: null, stageKinds: kinds });
    for (const write of prepared.writes) {
      const docs = byCollection.get(write.collection) ?? new Map<string, Record<string, unknown>>();
      docs.set(JSON.stringify(write.key), { ...write.doc });
      byCollection.set(write.collection, docs);
    }
  }
  return new Map([...byCollection].map(([collection, docs]) => [collection, [...docs.values()]]));
}

/** The compared timestamp of a raw record, as the service reads it (events fall back to created_at). */
function compared(entity: SyncEntity, record: RawRecord): string | null {
  const definition = entityDefinition(entity);
  const prepared = preparePage({ entity, page: 1, data: [record], previous: null, stageKinds: new Map() });
  return definition.incremental ? prepared.maxCompared : null;
}

/**
 * The watermark of an incremental entity after its first `pages` pages have
 * committed: the largest compared timestamp on them (null when none has).
 */
export function watermarkAfterPages(data: CrmData, entity: SyncEntity, pages: number): string | null {
  if (!entityDefinition(entity).incremental) return null;
  const served = (data[entity] ?? []).slice(0, pages * PAGE_SIZE);
  let max: string | null = null;
  for (const record of served) {
    const value = compared(entity, record);
    if (value !== null && (max === null || value > max)) max = value;
  }
  return max;
}

/** Pages the source serves for a dataset of n records (an empty endpoint still answers one page). */
export const pagesOf = (n: number) => Math.max(1, Math.ceil(n / PAGE_SIZE));

export interface ExpectedCount {
  readonly entity: SummaryEntity;
  readonly pages: number;
  readonly records: number;
}

/**
 * The exact counts of the run that completes the data (docs/crash-consistency.md):
 * per entity, the pages and distinct records the source serves for the run's
 * query, i.e. everything for /pipelines and /users, and for an incremental
 * entity the records from updated_since = its watermark when the run began
 * (minus the safety margin) or sync_since; each page counted once.
 */
export function expectedCounts(data: CrmData, watermarks: ReadonlyMap<SyncEntity, string | null>): ExpectedCount[] {
  const rows: ExpectedCount[] = [];
  for (const entity of SYNC_ENTITIES) {
    const all = data[entity] ?? [];
    let served = all;
    if (entityDefinition(entity).incremental) {
      const since = Date.parse(updatedSince(watermarks.get(entity) ?? null, CRASH_SYNC_SINCE));
      served = changedSince(all, since, (record) => Date.parse(compared(entity, record) ?? "1970-01-01T00:00:00Z"));
    }
    rows.push({ entity, pages: pagesOf(served.length), records: served.length });
    if (entity === "pipelines") {
      const stages = served.reduce((sum, pipeline) => sum + (pipeline["stages"] as unknown[]).length, 0);
      rows.push({ entity: "stages", pages: pagesOf(served.length), records: stages });
    }
  }
  return rows;
}
