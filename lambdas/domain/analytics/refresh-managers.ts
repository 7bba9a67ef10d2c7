import type { Clock } from "../core/ports/clock";
import type { Logger } from "../core/ports/logger";
import type { ManagerStore } from "./manager-store";
import type { RecordScan } from "../core/ports/record-scan";
import { MAX_IDLE_DAYS } from "../core/idle-days";
import { ManagerAggregateBuilder } from "./aggregate-builder";
import { DAY_MS } from "./utc-days";

export interface RefreshDeps {
  readonly scan: RecordScan;
  readonly managers: ManagerStore;
  readonly clock: Clock;
  readonly logger: Logger;
}

export interface RefreshJob {
  readonly connectionId: string;
  /** Recompute even when the stored records look unchanged (an audit's heals move no watermark). */
  readonly force: boolean;
}

export interface RefreshResult {
  readonly refreshed: boolean;
  readonly records: number;
  readonly bytes: number;
  readonly written: number;
  readonly deleted: number;
  readonly ms: number;
}

/**
 * Events older than this cannot change an idle count: a lead last touched
 * before it is idle under any threshold a connection can set (MAX_IDLE_DAYS),
 * whichever older touch the refresh finds for it. Two days of margin for the
 * whole-day rounding and a request a day after the refresh.
 */
const EVENTS_WINDOW_DAYS = MAX_IDLE_DAYS + 2;

/**
 * Recomputes a connection's per-manager aggregates from its stored records
 * (docs/analytics-api.md, "How the figures stay current"): at a run's end,
 * unless the stored records are what the last refresh saw (the same version:
 * a run that wrote nothing costs a few reads, not a full one). The version is
 * read before the records, so a page committed during the read leaves a
 * version the next refresh does not recognise.
 */
export async function refreshManagers(deps: RefreshDeps, job: RefreshJob): Promise<RefreshResult> {
  const started = deps.clock.now();
  const { connectionId } = job;
  const version = await deps.managers.recordsVersion(connectionId);
  const meta = await deps.managers.getMeta(connectionId);
  if (!job.force && meta?.signature === version) {
    return { refreshed: false, records: 0, bytes: 0, written: 0, deleted: 0, ms: deps.clock.now().getTime() - started.getTime() };
  }
  const builder = new ManagerAggregateBuilder(started);
  let records = 0;
  let bytes = 0;
  const read = async (
    collection: Parameters<RecordScan["scan"]>[1],
    add: (doc: Readonly<Record<string, unknown>>) => void,
    options?: { readonly since?: string },
  ) => {
    const out = await deps.scan.scan(connectionId, collection, (docs) => docs.forEach(add), options);
    records += out.records;
    bytes += out.bytes;
  };
  // Stages and users first (what a record's stage and user resolve against), leads last (they need their tasks, calls and events).
  await Promise.all([read("stages", (doc) => builder.addStage(doc)), read("users", (doc) => builder.addUser(doc))]);
  await Promise.all([
    read("tasks", (doc) => builder.addTask(doc)),
    read("calls", (doc) => builder.addCall(doc)),
    read("events", (doc) => builder.addEvent(doc), { since: new Date(started.getTime() - EVENTS_WINDOW_DAYS * DAY_MS).toISOString() }),
  ]);
  await read("leads", (doc) => builder.addLead(doc));
  const { written, deleted } = await deps.managers.saveSnapshot(connectionId, builder.build(version));
  const ms = deps.clock.now().getTime() - started.getTime();
  deps.logger.info("manager figures refreshed", { connection_id: connectionId, records, bytes, written, deleted, ms });
  return { refreshed: true, records, bytes, written, deleted, ms };
}
