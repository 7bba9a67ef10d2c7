import type {
  AttributeValue,
  GetItemCommandInput,
  TransactWriteItemsCommandInput,
  Update,
} from "@aws-sdk/client-dynamodb";
import { marshall, unmarshall } from "@aws-sdk/util-dynamodb";
import * as v from "valibot";
import { SUMMARY_ENTITIES, type SummaryEntity } from "../../../domain/core/entities";
import { cutDetail } from "../../../domain/core/errors";
import type { PageRun } from "../../../domain/core/ports/record-store";
import type { EntitiesMove, NewRun, RunEnd } from "../../../domain/core/ports/run-store";
import { RunLockSchema, type RunLock } from "../../../domain/core/run-lock";
import { AUDIT_ENTITIES, AUDIT_ID_PREFIX, runModeOf, type RunMode } from "../../../domain/core/run-mode";
import { AUDIT_SAMPLE_IDS, type AuditSummary, type HealedCounts } from "../../../domain/core/audit-summary";
import { FINDING_SAMPLE_IDS } from "../../../domain/core/limits";
import { EntityProgressSchema, RunFindingSchema, RunSummarySchema, RunWaitSchema, type EntityProgress, type RunSummary, type RunWait } from "../../../domain/core/run-summary";
import { PARTITION_KEY_MAX_BYTES, SORT_KEY_MAX_BYTES, utf8Bytes } from "../table/key-limits";
import type { PagedQuery } from "../table/query-all";

/**
 * A sync run's items in the single table (pk S, sk S): their keys, how they
 * are stored and parsed, and every condition and update written to them. The
 * one home of a run's state: the run store, the page's transactions, the
 * watermark reset and the connection store ask here for what they send. Pure:
 * it builds DynamoDB request inputs and never sends one.
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

type Item = Record<string, AttributeValue>;

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
function entityMapKey(entity: SummaryEntity): string {
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

/* ---- How the items are stored and read back ---- */

/** A run summary item or lock item whose attributes do not parse (written by something else, or damaged). */
export class CorruptRunItemError extends Error {
  override readonly name = "CorruptRunItemError";
}

/**
 * A run summary as stored: the summary's own fields under their own names
 * (RUN_ATTR), with `entities` a map keyed by entity name (so a page's progress
 * is one UpdateItem). A row or a count not written yet reads as its start value.
 */
const { entity: _entity, ...progressFields } = EntityProgressSchema.entries;

/**
 * A row's findings are stored flat in its map, three attributes per rule id
 * (`finding_count:<rule>` ADDed, `finding_samples:<rule>` appended,
 * `finding_info:<rule>` set once), so a page's progress adds to them in its one
 * UpdateItem without a map per rule having to exist first.
 */
export const FINDING_ATTR_PREFIX = { count: "finding_count:", samples: "finding_samples:", info: "finding_info:" } as const;

const StoredFindingInfoSchema = v.object({ severity: RunFindingSchema.entries.severity, detail: v.string() });

/** The findings of a stored row, errors first, then by rule id (rows written before findings existed have none). */
function storedFindings(row: Record<string, unknown>): unknown[] {
  const findings = [];
  for (const [name, count] of Object.entries(row)) {
    if (!name.startsWith(FINDING_ATTR_PREFIX.count)) continue;
    const rule = name.slice(FINDING_ATTR_PREFIX.count.length);
    const info = v.safeParse(StoredFindingInfoSchema, row[`${FINDING_ATTR_PREFIX.info}${rule}`]);
    const samples = row[`${FINDING_ATTR_PREFIX.samples}${rule}`];
    findings.push({
      rule,
      severity: info.success ? info.output.severity : undefined,
      count,
      // A page replayed from another starting cursor could append past the bound: the summary shows the first ones.
      sample_ids: Array.isArray(samples) ? samples.slice(0, FINDING_SAMPLE_IDS) : [],
      detail: info.success ? info.output.detail : undefined,
    });
  }
  const rank = (finding: { severity?: string }) => (finding.severity === "error" ? 0 : 1);
  return findings.sort((a, b) => rank(a) - rank(b) || (a.rule < b.rule ? -1 : a.rule > b.rule ? 1 : 0));
}

const StoredProgressSchema = v.pipe(
  v.looseObject({
    status: v.optional(progressFields.status, "pending"),
    pages: v.optional(progressFields.pages, 0),
    records: v.optional(progressFields.records, 0),
    error: v.optional(progressFields.error, null),
    // Rows written before failures named their rule have none.
    failure: v.optional(progressFields.failure, null),
    // Waits recorded before they named their rule have none.
    waits: v.optional(v.array(v.object({ ...RunWaitSchema.entries, rule: v.optional(RunWaitSchema.entries.rule, null) })), []),
  }),
  v.transform(({ status, pages, records, error, failure, waits, ...rest }) => ({ status, pages, records, error, failure, waits, findings: storedFindings(rest) })),
  v.object({ ...progressFields }),
);
const { entities: _entities, ...summaryFields } = RunSummarySchema.entries;
const RunItemSchema = v.object({
  ...summaryFields,
  finished_at: v.optional(summaryFields.finished_at, null),
  unresolved_won_lost: v.optional(summaryFields.unresolved_won_lost, 0),
  entities: v.optional(v.record(v.string(), StoredProgressSchema), {}),
});

/** The rows a run of this mode reports: every entity for a sync, the incremental ones for an audit. */
function rowsOfMode(mode: RunMode): readonly SummaryEntity[] {
  return mode === "audit" ? AUDIT_ENTITIES : SUMMARY_ENTITIES;
}

/** A new run's summary item: running, every entity of its mode pending, expiring RUN_RETENTION_DAYS after its start. */
function newRunItem(run: NewRun): Item {
  const pending = { status: "pending", pages: 0, records: 0, error: null } as const;
  return {
    ...runKey(run.connectionId, run.runId),
    ...marshall({
      [RUN_ATTR.id]: run.runId,
      [RUN_ATTR.connectionId]: run.connectionId,
      [RUN_ATTR.status]: "running",
      [RUN_ATTR.startedAt]: run.startedAt,
      [RUN_ATTR.finishedAt]: null,
      [RUN_ATTR.unresolvedWonLost]: 0,
      [RUN_ATTR.entities]: Object.fromEntries(rowsOfMode(runModeOf(run.runId)).map((entity) => [entityMapKey(entity), pending])),
      [RUN_ATTR.expiresAt]: runExpiresAt(run.startedAt),
    }),
  };
}

/** The summary a run item holds; CorruptRunItemError when it does not parse. */
export function readRunItem(item: Item): RunSummary {
  const parsed = v.safeParse(RunItemSchema, unmarshall(item), { abortEarly: true });
  if (!parsed.success) {
    const where = `run item ${item[RUN_ATTR.pk]?.S ?? "?"} / ${item[RUN_ATTR.sk]?.S ?? "?"}`;
    throw new CorruptRunItemError(`${where}: ${describeIssue(parsed.issues[0])}`);
  }
  const { entities: stored, ...summary } = parsed.output;
  // In sync order, whatever the map holds: a row never written reads as pending.
  const entities = rowsOfMode(runModeOf(summary.id)).map(
    (entity): EntityProgress => ({ entity, ...(stored[entityMapKey(entity)] ?? v.parse(StoredProgressSchema, {})) }),
  );
  return { ...summary, entities };
}

/** The lock a lock item holds; null when it does not parse (the caller decides whether that is an error). */
export function parseLockItem(item: Item): { readonly lock: RunLock } | { readonly problem: string } {
  const parsed = v.safeParse(RunLockSchema, unmarshall(item), { abortEarly: true });
  return parsed.success ? { lock: parsed.output } : { problem: describeIssue(parsed.issues[0]) };
}

/** The lock of a connection as read; CorruptRunItemError when the item does not parse. */
export function readLockItem(connectionId: string, item: Item): RunLock {
  const parsed = parseLockItem(item);
  if ("problem" in parsed) throw new CorruptRunItemError(`run lock of connection ${connectionId} is damaged: ${parsed.problem}`);
  return parsed.lock;
}

/** The run id a lock item names, read raw (a damaged lock still says who holds it, if it can). */
export function lockHolder(item: Item | undefined): string | undefined {
  return item?.[RUN_ATTR.lockRunId]?.S;
}

function describeIssue(issue: v.BaseIssue<unknown>): string {
  return `${issue.path?.map((item) => String(item.key)).join(".") || "(item)"}: ${issue.message}`;
}

/* ---- Reads ---- */

export function getRunRequest(tableName: string, connectionId: string, runId: string): GetItemCommandInput {
  return { TableName: tableName, Key: runKey(connectionId, runId), ConsistentRead: true };
}

export function getLockRequest(tableName: string, connectionId: string): GetItemCommandInput {
  return { TableName: tableName, Key: lockKey(connectionId), ConsistentRead: true };
}

/** One page of the connection's runs of one mode, newest first (run ids sort by time; audits' above every sync's). */
export function listRunsRequest(tableName: string, connectionId: string, mode: RunMode = "sync"): PagedQuery {
  return {
    TableName: tableName,
    KeyConditionExpression: mode === "audit" ? "#pk = :pk AND begins_with(#sk, :audit)" : "#pk = :pk AND #sk < :audit",
    ExpressionAttributeNames: { "#pk": RUN_ATTR.pk, "#sk": RUN_ATTR.sk },
    ExpressionAttributeValues: { ":pk": { S: runPartitionKey(connectionId) }, ":audit": { S: AUDIT_ID_PREFIX } },
    ScanIndexForward: false,
    ConsistentRead: true,
  };
}

/* ---- The lock: taken, leased, fenced, released ---- */

/** The lock holds while its runId is this run's (names #runId; value :runId). */
const LOCK_HELD = "#runId = :runId";

/** Indexes of beginTransaction's actions, for its cancellation reasons. */
export const BEGIN_LOCK_INDEX = 0;
export const BEGIN_RUN_INDEX = 1;

/**
 * begin(): Put of the lock (condition: no lock, or, with `replacing`, no lock
 * or a lock held by that run id) and Put of the new summary (condition: the
 * run id is new).
 */
export function beginTransaction(tableName: string, run: NewRun, replacing: string | undefined): TransactWriteItemsCommandInput {
  const lockCondition = replacing === undefined ? "attribute_not_exists(#pk)" : "attribute_not_exists(#pk) OR #runId = :replacing";
  const lockNames: Record<string, string> = { "#pk": RUN_ATTR.pk };
  if (replacing !== undefined) lockNames["#runId"] = RUN_ATTR.lockRunId;
  return {
    TransactItems: [
      {
        Put: {
          TableName: tableName,
          Item: {
            ...lockKey(run.connectionId),
            [RUN_ATTR.lockRunId]: { S: run.runId },
            [RUN_ATTR.lockExecutionRef]: { NULL: true },
            [RUN_ATTR.lockLeaseUntil]: { S: run.leaseUntil },
          },
          ConditionExpression: lockCondition,
          ExpressionAttributeNames: lockNames,
          ExpressionAttributeValues: replacing === undefined ? undefined : { ":replacing": { S: replacing } },
        },
      },
      {
        Put: {
          TableName: tableName,
          Item: newRunItem(run),
          ConditionExpression: "attribute_not_exists(#pk)",
          ExpressionAttributeNames: { "#pk": RUN_ATTR.pk },
        },
      },
    ],
  };
}

/**
 * An update of the lock that applies only while runId holds it (the store
 * reads its failed condition as a no-op): the execution recorded (null:
 * forgotten, for a hand-over), the lease moved, or both.
 */
export function ownLockUpdate(
  tableName: string,
  connectionId: string,
  runId: string,
  set: { readonly executionRef?: string | null; readonly leaseUntil?: string },
): Update {
  const sets: string[] = [];
  const names: Record<string, string> = { "#runId": RUN_ATTR.lockRunId };
  const values: Record<string, AttributeValue> = { ":runId": { S: runId } };
  if (set.executionRef !== undefined) {
    sets.push("#executionRef = :executionRef");
    names["#executionRef"] = RUN_ATTR.lockExecutionRef;
    values[":executionRef"] = set.executionRef === null ? { NULL: true } : { S: set.executionRef };
  }
  if (set.leaseUntil !== undefined) {
    sets.push("#leaseUntil = :leaseUntil");
    names["#leaseUntil"] = RUN_ATTR.lockLeaseUntil;
    values[":leaseUntil"] = { S: set.leaseUntil };
  }
  if (sets.length === 0) throw new TypeError("ownLockUpdate: nothing to set");
  return {
    TableName: tableName,
    Key: lockKey(connectionId),
    UpdateExpression: `SET ${sets.join(", ")}`,
    ConditionExpression: LOCK_HELD,
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
  };
}

/**
 * A watermark reset's fence: marks the lock of a run under way (condition: a
 * lock exists), so none of that run's pages can commit after the reset.
 */
export function watermarksResetUpdate(tableName: string, connectionId: string): Update {
  return {
    TableName: tableName,
    Key: lockKey(connectionId),
    UpdateExpression: "SET #reset = :true",
    ConditionExpression: "attribute_exists(#pk)",
    ExpressionAttributeNames: { "#pk": RUN_ATTR.pk, "#reset": RUN_ATTR.lockWatermarksReset },
    ExpressionAttributeValues: { ":true": { BOOL: true } },
  };
}

/* ---- The summary: progress while running; the first finish wins ---- */

/** Updates of a run summary apply only while it is running (names #pk, #status; value :running). */
const RUNNING_CONDITION = "attribute_exists(#pk) AND #status = :running";

type UpdateParts = Pick<Update, "UpdateExpression" | "ExpressionAttributeNames" | "ExpressionAttributeValues">;

/** An update of the summary under RUNNING_CONDITION (a failed condition: missing summary, or a finished run). */
function runningRunUpdate(tableName: string, connectionId: string, runId: string, update: UpdateParts, extraCondition = ""): Update {
  return {
    TableName: tableName,
    Key: runKey(connectionId, runId),
    UpdateExpression: update.UpdateExpression,
    ConditionExpression: `${RUNNING_CONDITION}${extraCondition}`,
    ExpressionAttributeNames: { ...update.ExpressionAttributeNames, "#pk": RUN_ATTR.pk, "#status": RUN_ATTR.status },
    ExpressionAttributeValues: { ...update.ExpressionAttributeValues, ":running": { S: "running" } },
  };
}

/**
 * Rows that end (with one outcome; the error cut to 300 characters) and rows
 * that start, in one write; undefined when both lists are empty (nothing to write).
 */
export function entitiesMovedUpdate(tableName: string, connectionId: string, runId: string, move: EntitiesMove): Update | undefined {
  const sets: string[] = [];
  const names: Record<string, string> = { "#entities": RUN_ATTR.entities, "#status": RUN_ATTR.entityStatus };
  const values: Record<string, AttributeValue> = {};
  move.finished.forEach((entity, index) => {
    names[`#f${index}`] = entityMapKey(entity);
    sets.push(`#entities.#f${index}.#status = :finished`, `#entities.#f${index}.#error = :error`, `#entities.#f${index}.#failure = :failure`);
  });
  if (move.finished.length > 0) {
    names["#error"] = RUN_ATTR.entityError;
    names["#failure"] = RUN_ATTR.entityFailure;
    values[":finished"] = { S: move.outcome.status };
    const failure = move.outcome.status === "failed" ? move.outcome.failure : null;
    values[":error"] = failure === null ? { NULL: true } : { S: cutDetail(failure.detail) };
    values[":failure"] = failure === null ? { NULL: true } : { M: marshall({ ...failure, detail: cutDetail(failure.detail) }) };
  }
  move.started.forEach((entity, index) => {
    names[`#s${index}`] = entityMapKey(entity);
    sets.push(`#entities.#s${index}.#status = :running`);
  });
  if (sets.length === 0) return undefined;
  return runningRunUpdate(tableName, connectionId, runId, {
    UpdateExpression: `SET ${sets.join(", ")}`,
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
  });
}

/** Appends a wait to the entity's list: bounded, so a source that throttles every page cannot grow the item without end. */
export function entityWaitedUpdate(tableName: string, connectionId: string, runId: string, entity: SummaryEntity, wait: RunWait): Update {
  const item: AttributeValue = {
    M: {
      kind: { S: wait.kind },
      page: { N: String(wait.page) },
      attempt: { N: String(wait.attempt) },
      seconds: { N: String(wait.seconds) },
      retry_after_seconds: wait.retry_after_seconds === null ? { NULL: true } : { N: String(wait.retry_after_seconds) },
      at: { S: wait.at },
      detail: wait.detail === null ? { NULL: true } : { S: cutDetail(wait.detail) },
      ...(wait.rule === null ? {} : { rule: { S: wait.rule } }),
    },
  };
  return runningRunUpdate(
    tableName,
    connectionId,
    runId,
    {
      UpdateExpression: "SET #entities.#entity.#waits = list_append(if_not_exists(#entities.#entity.#waits, :none), :wait)",
      ExpressionAttributeNames: { "#entities": RUN_ATTR.entities, "#entity": entityMapKey(entity), "#waits": RUN_ATTR.entityWaits },
      ExpressionAttributeValues: { ":none": { L: [] }, ":wait": { L: [item] }, ":max": { N: String(MAX_RECORDED_WAITS) } },
    },
    " AND (attribute_not_exists(#entities.#entity.#waits) OR size(#entities.#entity.#waits) < :max)",
  );
}

export type RunOutcome = RunEnd;

/** The summary's final status and finish time, under RUNNING_CONDITION (the first finish wins). */
export function finishUpdate(tableName: string, connectionId: string, runId: string, outcome: RunOutcome): Update {
  return runningRunUpdate(tableName, connectionId, runId, {
    // A summary begun before retention existed has no expiry: it gets one counted from its finish.
    UpdateExpression: "SET #status = :status, #finishedAt = :finishedAt, #expiresAt = if_not_exists(#expiresAt, :expiresAt)",
    ExpressionAttributeNames: { "#finishedAt": RUN_ATTR.finishedAt, "#expiresAt": RUN_ATTR.expiresAt },
    ExpressionAttributeValues: {
      ":status": { S: outcome.status },
      ":finishedAt": { S: outcome.finishedAt },
      ":expiresAt": { N: String(runExpiresAt(outcome.finishedAt)) },
    },
  });
}

/** Indexes of finishTransaction's actions, for its cancellation reasons. */
export const FINISH_RUN_INDEX = 0;
export const FINISH_LOCK_INDEX = 1;

/** finish(): the summary's finishUpdate and the Delete of the lock, conditioned on this run holding it. */
export function finishTransaction(tableName: string, connectionId: string, runId: string, outcome: RunOutcome): TransactWriteItemsCommandInput {
  return {
    TransactItems: [
      { Update: finishUpdate(tableName, connectionId, runId, outcome) },
      {
        Delete: {
          TableName: tableName,
          Key: lockKey(connectionId),
          ConditionExpression: LOCK_HELD,
          ExpressionAttributeNames: { "#runId": RUN_ATTR.lockRunId },
          ExpressionAttributeValues: { ":runId": { S: runId } },
        },
      },
    ],
  };
}

/* ---- A page's part: the fence, the lease, the progress ---- */

/**
 * The run's actions in a page's transactions: `check`, the fence of every
 * transaction (this run holds the lock, and its watermarks were not reset
 * under it); `lease`, the same fence extending the lease, in the last one; and
 * `progress`, the page counted in the summary only when its number is above
 * the last one counted, so a page replayed after it committed counts once.
 */
export function pageFence(tableName: string, connectionId: string, run: PageRun) {
  const records = requireCount("records", run.records);
  const stages = requireCount("stages", run.stages);
  const unresolved = requireCount("unresolvedWonLost", run.unresolvedWonLost);
  if (!Number.isSafeInteger(run.page) || run.page < 1) throw new RangeError(`page must be an integer >= 1; got ${run.page}`);

  const key = lockKey(connectionId);
  const fenced = {
    ConditionExpression: `${LOCK_HELD} AND attribute_not_exists(#reset)`,
    ExpressionAttributeNames: { "#runId": RUN_ATTR.lockRunId, "#reset": RUN_ATTR.lockWatermarksReset },
    ExpressionAttributeValues: { ":runId": { S: run.runId } },
  };
  const check = { TableName: tableName, Key: key, ...fenced };
  const lease = {
    TableName: tableName,
    Key: key,
    UpdateExpression: "SET #leaseUntil = :leaseUntil",
    ...fenced,
    ExpressionAttributeNames: { ...fenced.ExpressionAttributeNames, "#leaseUntil": RUN_ATTR.lockLeaseUntil },
    ExpressionAttributeValues: { ...fenced.ExpressionAttributeValues, ":leaseUntil": { S: run.leaseUntil } },
  };

  const auditSets: string[] = [];
  const adds = ["#entities.#entity.#pages :one", "#entities.#entity.#records :records", "#unresolved :unresolved"];
  const names: Record<string, string> = {
    "#status": RUN_ATTR.status,
    "#entities": RUN_ATTR.entities,
    "#entity": entityMapKey(run.entity),
    "#lastPage": RUN_ATTR.entityLastPage,
    "#pages": RUN_ATTR.entityPages,
    "#records": RUN_ATTR.entityRecords,
    "#unresolved": RUN_ATTR.unresolvedWonLost,
  };
  const values: Record<string, AttributeValue> = {
    ":running": { S: "running" },
    ":page": { N: String(run.page) },
    ":one": { N: "1" },
    ":records": { N: String(records) },
    ":unresolved": { N: String(unresolved) },
  };
  if (run.entity === "pipelines") {
    // The stages come from /pipelines: its pages are theirs too.
    adds.push("#entities.#stages.#pages :one", "#entities.#stages.#records :stages");
    names["#stages"] = entityMapKey("stages");
    values[":stages"] = { N: String(stages) };
  }
  if (run.audit !== undefined) {
    // An audit's heal counts, under the same condition as the page's count: a replayed page adds nothing.
    const { healed, sampleIds } = run.audit;
    names["#hm"] = RUN_ATTR.auditHealedMissed;
    names["#hs"] = RUN_ATTR.auditHealedStale;
    names["#hc"] = RUN_ATTR.auditHealedChanged;
    values[":hm"] = { N: String(requireCount("missed", healed.missed)) };
    values[":hs"] = { N: String(requireCount("stale", healed.stale)) };
    values[":hc"] = { N: String(requireCount("changed_without_advancing", healed.changed_without_advancing)) };
    adds.push("#entities.#entity.#hm :hm", "#entities.#entity.#hs :hs", "#entities.#entity.#hc :hc");
    if (run.audit.ahead > 0) {
      names["#ahead"] = RUN_ATTR.auditAhead;
      values[":ahead"] = { N: String(requireCount("ahead", run.audit.ahead)) };
      adds.push("#entities.#entity.#ahead :ahead");
    }
    if (sampleIds.length > 0) {
      names["#samples"] = RUN_ATTR.auditSampleIds;
      values[":samples"] = { L: sampleIds.slice(0, AUDIT_SAMPLE_IDS).map((id) => ({ S: id })) };
      values[":noSamples"] = { L: [] };
      auditSets.push("#entities.#entity.#samples = list_append(if_not_exists(#entities.#entity.#samples, :noSamples), :samples)");
    }
  }
  const sets = ["#entities.#entity.#lastPage = :page", ...auditSets];
  (run.findings ?? []).forEach((finding, index) => {
    // Under the same condition as the page's count: a replayed page adds nothing here either.
    const [count, samples, info] = [`#fc${index}`, `#fs${index}`, `#fi${index}`];
    names[count] = `${FINDING_ATTR_PREFIX.count}${finding.rule}`;
    names[info] = `${FINDING_ATTR_PREFIX.info}${finding.rule}`;
    values[`:fc${index}`] = { N: String(requireCount("finding count", finding.count)) };
    values[`:fi${index}`] = { M: { severity: { S: finding.severity }, detail: { S: cutDetail(finding.detail) } } };
    adds.push(`#entities.#entity.${count} :fc${index}`);
    sets.push(`#entities.#entity.${info} = if_not_exists(#entities.#entity.${info}, :fi${index})`);
    if (finding.sampleIds.length > 0) {
      names[samples] = `${FINDING_ATTR_PREFIX.samples}${finding.rule}`;
      values[`:fs${index}`] = { L: finding.sampleIds.map((id) => ({ S: id })) };
      values[":noSamples"] = { L: [] };
      sets.push(`#entities.#entity.${samples} = list_append(if_not_exists(#entities.#entity.${samples}, :noSamples), :fs${index})`);
    }
  });
  const progress = {
    TableName: tableName,
    Key: runKey(connectionId, run.runId),
    UpdateExpression: `SET ${sets.join(", ")} ADD ${adds.join(", ")}`,
    ConditionExpression:
      "#status = :running AND (attribute_not_exists(#entities.#entity.#lastPage) OR #entities.#entity.#lastPage < :page)",
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
  };
  return { check, lease, progress };
}

/** Records of a page that an earlier page of its run already counted (a record a source sent on both). */
export interface Uncounted {
  records: number;
  /** A /pipelines page's stages. */
  stages: number;
}

/**
 * The page's progress update (pageFence) with the records an earlier page of
 * the run counted left out, so that `records` counts distinct records: the
 * store learns them from its heads' refusals, never from a read.
 */
export function progressWithout(progress: Update, uncounted: Uncounted): Update {
  const values = { ...progress.ExpressionAttributeValues };
  const lower = (name: string, by: number) => {
    const count = values[name]?.N;
    if (count !== undefined && by > 0) values[name] = { N: String(Math.max(0, Number(count) - by)) };
  };
  lower(":records", uncounted.records);
  lower(":stages", uncounted.stages);
  return { ...progress, ExpressionAttributeValues: values };
}

function requireCount(what: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`${what} must be an integer >= 0; got ${value}`);
  return value;
}

/* ---- Audits: closing an entity, reading the summary ---- */

/**
 * What an audit found of an entity once it read the whole of it: the records
 * the store holds, the ones the source no longer returns, and a few of their
 * ids after the healed ones. SET, not ADD: a replayed close writes the same.
 */
export function auditEntityClosedUpdate(
  tableName: string,
  connectionId: string,
  auditId: string,
  entity: SummaryEntity,
  closed: { readonly storedRecords: number; readonly absentIds: readonly string[] },
): Update {
  return runningRunUpdate(tableName, connectionId, auditId, {
    UpdateExpression:
      "SET #entities.#entity.#stored = :stored, #entities.#entity.#absent = :absent, #entities.#entity.#absentSamples = :absentSamples",
    ExpressionAttributeNames: {
      "#entities": RUN_ATTR.entities,
      "#entity": entityMapKey(entity),
      "#stored": RUN_ATTR.auditStoredRecords,
      "#absent": RUN_ATTR.auditAbsent,
      "#absentSamples": AUDIT_ABSENT_SAMPLES,
    },
    ExpressionAttributeValues: {
      ":stored": { N: String(requireCount("storedRecords", closed.storedRecords)) },
      ":absent": { N: String(closed.absentIds.length) },
      ":absentSamples": { L: closed.absentIds.slice(0, AUDIT_SAMPLE_IDS).map((id) => ({ S: id })) },
    },
  });
}

const AUDIT_ABSENT_SAMPLES = "absent_sample_ids";

const AuditRowExtrasSchema = v.object({
  [RUN_ATTR.auditHealedMissed]: v.optional(v.number(), 0),
  [RUN_ATTR.auditHealedStale]: v.optional(v.number(), 0),
  [RUN_ATTR.auditHealedChanged]: v.optional(v.number(), 0),
  [RUN_ATTR.auditAhead]: v.optional(v.number(), 0),
  [RUN_ATTR.auditSampleIds]: v.optional(v.array(v.string()), []),
  [RUN_ATTR.auditStoredRecords]: v.optional(v.number(), 0),
  [RUN_ATTR.auditAbsent]: v.optional(v.number(), 0),
  [AUDIT_ABSENT_SAMPLES]: v.optional(v.array(v.string()), []),
});

/** An audit's summary item as the API shows it; CorruptRunItemError when it does not parse. */
export function readAuditItem(item: Item): AuditSummary {
  const summary = readRunItem(item);
  const raw = unmarshall(item) as { entities?: Record<string, unknown> };
  return {
    id: summary.id,
    status: summary.status,
    started_at: summary.started_at,
    finished_at: summary.finished_at,
    entities: summary.entities.flatMap((row) => {
      const entity = AUDIT_ENTITIES.find((name) => name === row.entity);
      if (entity === undefined) return [];
      const parsed = v.safeParse(AuditRowExtrasSchema, raw.entities?.[entityMapKey(row.entity)] ?? {});
      if (!parsed.success) throw new CorruptRunItemError(`audit ${summary.id}: row ${row.entity}: ${describeIssue(parsed.issues[0])}`);
      const extras = parsed.output;
      const healed: HealedCounts = {
        missed: extras[RUN_ATTR.auditHealedMissed],
        stale: extras[RUN_ATTR.auditHealedStale],
        changed_without_advancing: extras[RUN_ATTR.auditHealedChanged],
      };
      return [
        {
          entity,
          status: row.status,
          source_records: row.records,
          stored_records: extras[RUN_ATTR.auditStoredRecords],
          healed,
          ahead_of_watermark: extras[RUN_ATTR.auditAhead],
          absent_in_source: extras[RUN_ATTR.auditAbsent],
          sample_ids: [...extras[RUN_ATTR.auditSampleIds], ...extras[AUDIT_ABSENT_SAMPLES]].slice(0, AUDIT_SAMPLE_IDS),
          findings: row.findings,
          error: row.error,
        },
      ];
    }),
  };
}
