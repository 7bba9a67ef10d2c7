import type { GetItemCommandInput } from "@aws-sdk/client-dynamodb";
import { marshall, unmarshall } from "@aws-sdk/util-dynamodb";
import * as v from "valibot";
import { SUMMARY_ENTITIES, type SummaryEntity } from "../../../../domain/core/entities";
import type { NewRun } from "../../../../domain/core/ports/run-store";
import { RunLockSchema, type RunLock } from "../../../../domain/core/run-lock";
import { ENTITY_INITIAL_STATUS, RUN_INITIAL_STATUS } from "../../../../domain/core/run-lifecycle";
import { AUDIT_ENTITIES, AUDIT_ID_PREFIX, runModeOf, type RunMode } from "../../../../domain/core/run-mode";
import { FINDING_SAMPLE_IDS } from "../../../../domain/core/limits";
import { EntityProgressSchema, RunFindingSchema, RunSummarySchema, RunWaitSchema, type EntityProgress, type RunSummary } from "../../../../domain/core/run-summary";
import type { PagedQuery } from "../../table/query-all";
import { RUN_ATTR, entityMapKey, lockKey, runExpiresAt, runKey, runPartitionKey, type Item } from "./run-keys";

/* How a run's items are stored and read back, and the requests that read them. */

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
export function newRunItem(run: NewRun): Item {
  const pending = { status: ENTITY_INITIAL_STATUS, pages: 0, records: 0, error: null } as const;
  return {
    ...runKey(run.connectionId, run.runId),
    ...marshall({
      [RUN_ATTR.id]: run.runId,
      [RUN_ATTR.connectionId]: run.connectionId,
      [RUN_ATTR.status]: RUN_INITIAL_STATUS,
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

export function describeIssue(issue: v.BaseIssue<unknown>): string {
  return `${issue.path?.map((item) => String(item.key)).join(".") || "(item)"}: ${issue.message}`;
}

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


/** A count as the summary stores it: an integer >= 0. */
export function requireCount(what: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`${what} must be an integer >= 0; got ${value}`);
  return value;
}
