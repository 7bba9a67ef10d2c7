import type { AttributeValue } from "@aws-sdk/client-dynamodb";
import type { SummaryEntity } from "../../../../domain/core/entities";
import { PARTITION_KEY_MAX_BYTES, SORT_KEY_MAX_BYTES, utf8Bytes } from "../../table/key-limits";

/**
 * A sync run's items in the single table (pk S, sk S). This folder is the one
 * home of a run's state: the run store, the page's transactions, the
 * watermark reset and the connection store ask it for what they send. Pure:
 * it builds DynamoDB request inputs and never sends one. By job: the keys and
 * attribute names (this file), how the items are stored and read
 * (run-codec.ts), the lock's writes (lock-writes.ts), the summary's writes
 * (progress-writes.ts), an audit's rows (audit-rows.ts), and the status
 * conditions derived from the run's lifecycle (status-conditions.ts).
 *
 *   run summary   pk = RUN#<connectionId>       sk = <runId>
 *   run lock      pk = RUNLOCK#<connectionId>   sk = LOCK
 *
 * - Run ids are made by the caller and sort by time
 *   (e.g. `20261121T161800123Z-ab12cd`), so a Query of the run partition in
 *   descending sort key order is newest first.
 * - `RUN#` and `RUNLOCK#` differ at their fourth character (`#` vs `L`), and
 *   neither starts like the record store's `REC#`/`PART#`/`WM#` or the
 *   connection store's `CONNECTION`, so no two kinds of item share a
 *   partition, whatever characters a connection id holds (everything after
 *   the prefix is the connection id).
 * - One lock item per connection: taking it is a conditional Put, releasing it
 *   a conditional Delete; both are conditioned on the lock's `runId`. Its
 *   lease, execution and fence are updates conditioned the same way.
 *
 * A run summary item holds `entities`, a map keyed by entity name, each value
 * a map { status, pages, records, error }, so that one page's progress is a
 * single UpdateItem with ADDs on `entities.<entity>.pages` / `.records`.
 * Reading it back orders the entities by SUMMARY_ENTITIES.
 *
 * An audit (core/run-mode.ts) is a run whose id starts with `audit-`: its
 * summary is a run summary item of the same partition, with the audit's rows
 * only and, on each row, its heal counts (`healed_missed`, `healed_stale`,
 * `healed_changed`, ADDed by its pages), `sample_ids`, `stored_records` and
 * `absent_in_source`. Sync run ids start with a digit, below the prefix, so a
 * Query of the partition below `audit-` lists runs and one beginning with it
 * lists audits, each newest first.
 *
 * Retention: a run summary carries `expires_at` (epoch seconds, the table's
 * TTL attribute), RUN_RETENTION_DAYS after the run started, so DynamoDB drops
 * it within days of that. The lock never carries it: a lock is deleted by
 * finish(), and a TTL on it could free a connection under a running run.
 */

export type Item = Record<string, AttributeValue>;

/** How long a run summary is kept after its run started (the runs list's history). */
export const RUN_RETENTION_DAYS = 90;
const SECONDS_PER_DAY = 86_400;

/** Waits kept per entity in a run summary; later ones are not recorded (the sync itself is unaffected). */
export const MAX_RECORDED_WAITS = 25;

/** The summary's `expires_at`: RUN_RETENTION_DAYS after `isoTime` (a run's start), in epoch seconds. */
export function runExpiresAt(isoTime: string): number {
  const ms = Date.parse(isoTime);
  if (!Number.isFinite(ms)) throw new TypeError(`not an ISO time: ${isoTime}`);
  return Math.floor(ms / 1000) + RUN_RETENTION_DAYS * SECONDS_PER_DAY;
}

/** Attribute names of the items. */
export const RUN_ATTR = {
  pk: "pk",
  sk: "sk",
  /* run summary */
  id: "id",
  connectionId: "connection_id",
  status: "status",
  startedAt: "started_at",
  finishedAt: "finished_at",
  unresolvedWonLost: "unresolved_won_lost",
  entities: "entities",
  /** Number, epoch seconds: the table's TTL attribute (lib/record-table.ts TTL_ATTRIBUTE). Summaries only. */
  expiresAt: "expires_at",
  /* inside entities.<entity> */
  entityStatus: "status",
  entityPages: "pages",
  entityRecords: "records",
  entityError: "error",
  /** A map { rule, record_id, field, detail, fix } (EntityFailureSchema), or null. */
  entityFailure: "failure",
  /** A list of maps, one per RunWait (MAX_RECORDED_WAITS at most). */
  entityWaits: "waits",
  /** The last page number counted: a page is counted only when its number is above it (replays count once). */
  entityLastPage: "last_page",
  /* inside entities.<entity>, audits only */
  auditHealedMissed: "healed_missed",
  auditHealedStale: "healed_stale",
  auditHealedChanged: "healed_changed",
  auditAhead: "ahead_of_watermark",
  auditSampleIds: "sample_ids",
  auditStoredRecords: "stored_records",
  auditAbsent: "absent_in_source",
  /* run lock */
  lockRunId: "runId",
  lockExecutionRef: "executionRef",
  lockLeaseUntil: "leaseUntil",
  /** Set by a watermark reset under a running run: that run's pages can no longer commit. */
  lockWatermarksReset: "watermarksReset",
} as const;

export const LOCK_SORT_KEY = "LOCK";
const RUN_PREFIX = "RUN#";
const RUN_LOCK_PREFIX = "RUNLOCK#";


export function runPartitionKey(connectionId: string): string {
  return checked(`${RUN_PREFIX}${requireNonEmpty("connectionId", connectionId)}`, PARTITION_KEY_MAX_BYTES, "partition");
}

export function runSortKey(runId: string): string {
  return checked(requireNonEmpty("runId", runId), SORT_KEY_MAX_BYTES, "sort");
}

export function runLockPartitionKey(connectionId: string): string {
  return checked(`${RUN_LOCK_PREFIX}${requireNonEmpty("connectionId", connectionId)}`, PARTITION_KEY_MAX_BYTES, "partition");
}

/** The key of a run's summary item. */
export function runKey(connectionId: string, runId: string): Item {
  return { [RUN_ATTR.pk]: { S: runPartitionKey(connectionId) }, [RUN_ATTR.sk]: { S: runSortKey(runId) } };
}

/** The key of the connection's run lock item. */
export function lockKey(connectionId: string): Item {
  return { [RUN_ATTR.pk]: { S: runLockPartitionKey(connectionId) }, [RUN_ATTR.sk]: { S: LOCK_SORT_KEY } };
}

/** The entity's name, used as a map key under `entities` (always through an expression attribute name). */
export function entityMapKey(entity: SummaryEntity): string {
  return entity;
}

function requireNonEmpty(what: string, value: string): string {
  if (value.length === 0) throw new TypeError(`${what} must not be empty`);
  return value;
}

function checked(value: string, maxBytes: number, kind: string): string {
  if (utf8Bytes(value) > maxBytes) {
    throw new TypeError(`${kind} key over ${maxBytes} UTF-8 bytes (id too long)`);
  }
  return value;
}
