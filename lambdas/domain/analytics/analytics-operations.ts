import * as v from "valibot";
import type { StoredConnection } from "../core/connection";
import { MANAGER_COLLECTIONS, UNASSIGNED, rowKeyOf, type ManagerCollection, type ManagerRow, type RowKey } from "./manager-aggregates";
import { DEFAULT_IDLE_DAYS } from "../core/idle-days";
import { REQUIRED_ENTITIES } from "../source-contract/entity-catalog";
import type { Session } from "../onboarding/auth/session-claims";
import { findConnection } from "../onboarding/connection-operations";
import { parseFields } from "../onboarding/connection-input";
import type { ApiDeps } from "./analytics-deps";
import { InvalidFieldError, NotFoundError } from "../onboarding/onboarding-errors";
import { RECORDS_DEFAULT_LIMIT, RECORDS_MAX_LIMIT, type RecordsPage } from "../onboarding/record-operations";
import { NotLinkedError } from "./analytics-errors";
import { figuresOfRows, type ManagerFiguresList } from "./manager-figures";
import { PERIOD_TIME_ZONE, parsePeriod } from "./period";
import { monthOfDay } from "./utc-days";
import { linkOfSession, linkableUsers, rememberMember, seesEveryRow } from "./viewer";

export const AnalyticsConnectionListSchema = v.object({
  data: v.array(
    v.object({
      id: v.string(),
      name: v.nullable(v.string()),
      /** The oldest data_as_of of the required entities; null until each has been synced. */
      data_as_of: v.nullable(v.string()),
      /** When the per-manager figures were last computed (a run's end); null before. */
      figures_as_of: v.nullable(v.string()),
      /** The source user the caller is linked to on this connection, and how; null when none. */
      linked_to: v.nullable(v.object({ source_user_id: v.string(), linked_by: v.picklist(["owner", "email"]) })),
    }),
  ),
});
export type AnalyticsConnectionList = v.InferOutput<typeof AnalyticsConnectionListSchema>;

/** The rows a session may read on a connection: every row, or (a MOP) their own; NotLinkedError when a MOP has none. */
async function visibleRow(deps: ApiDeps, session: Session, connection: StoredConnection): Promise<RowKey | "every"> {
  await rememberMember(deps, session);
  if (seesEveryRow(session)) return "every";
  const link = await linkOfSession(deps, session, connection);
  if (link === null) throw new NotLinkedError();
  return rowKeyOf(link.sourceUserId);
}

/** The workspace's connections for every role: a member chooses one. */
export async function listAnalyticsConnections(deps: ApiDeps, session: Session): Promise<AnalyticsConnectionList> {
  await rememberMember(deps, session);
  const connections = await deps.connections.listByAccount(session.businessAccountId);
  const data = await Promise.all(
    connections.map(async (connection) => {
      const [freshness, meta, link] = await Promise.all([
        deps.records.getFreshness(connection.id),
        deps.managers.getMeta(connection.id),
        linkOfSession(deps, session, connection),
      ]);
      const asOf = REQUIRED_ENTITIES.map((entity) => freshness[entity].data_as_of);
      return {
        id: connection.id,
        name: connection.name ?? null,
        data_as_of: asOf.some((value) => value === null) ? null : ([...asOf].sort()[0] ?? null),
        figures_as_of: meta?.computedAt ?? null,
        linked_to: link === null || link.kind === "unlinked" ? null : { source_user_id: link.sourceUserId, linked_by: link.kind },
      };
    }),
  );
  return { data: data.sort((a, b) => (a.name ?? a.id).localeCompare(b.name ?? b.id) || a.id.localeCompare(b.id)) };
}

/** A row with nothing in it: what a MOP linked to a source user who owns no record sees. */
function emptyRow(user: ManagerRow["user"], until: string): ManagerRow {
  return {
    user, owns: { leads: 0, tasks: 0, calls: 0 }, leads_open: 0, tasks_open: 0, overdue_before: { until, count: 0 }, due_after: [], due_after_more: 0,
    overdue_samples: [], idle_days: {}, idle_samples: [], without_open_task: 0, without_open_task_samples: [],
  };
}

const sameKey = (a: RowKey, b: RowKey) => a.kind === b.kind && (a.kind === "unassigned" || (b.kind === "user" && a.id === b.id));

/** GET /analytics/connections/{id}/managers?from=&to=: each row's figures for the period, as the session may see them. */
export async function getManagerFigures(
  deps: ApiDeps,
  session: Session,
  id: string,
  query: Readonly<Record<string, string | undefined>>,
): Promise<ManagerFiguresList> {
  const connection = await findConnection(deps, session.businessAccountId, id);
  const now = deps.clock.now();
  const period = parsePeriod(query, now);
  const scope = await visibleRow(deps, session, connection);
  const [meta, rows, months] = await Promise.all([
    deps.managers.getMeta(id),
    deps.managers.getRows(id),
    deps.managers.getMonths(id, monthOfDay(period.from), monthOfDay(period.to)),
  ]);
  let visible = scope === "every" ? rows : rows.filter((entry) => sameKey(entry.key, scope));
  if (scope !== "every" && visible.length === 0 && scope.kind === "user") {
    // Linked to a source user who owns nothing (yet): their row, empty.
    const user = (await linkableUsers(deps, id)).find((candidate) => candidate.id === scope.id);
    const doc = user?.doc ?? { id: scope.id };
    visible = [{ key: scope, row: emptyRow({ id: scope.id, name: str(doc["name"]), email: str(doc["email"]), role: str(doc["role"]), is_active: doc["is_active"] !== false }, now.toISOString()) }];
  }
  const idleDays = connection.idle_days ?? DEFAULT_IDLE_DAYS;
  return {
    connection_id: id,
    period: { from: period.from, to: period.to, time_zone: PERIOD_TIME_ZONE },
    computed_at: meta?.computedAt ?? null,
    idle_days: idleDays,
    rows: figuresOfRows(visible, months.filter((month) => visible.some((entry) => sameKey(entry.key, month.key))), period, now, idleDays),
  };
}

const str = (value: unknown): string | null => (typeof value === "string" ? value : null);

const LIMIT_RULE = `must be an integer from 1 to ${RECORDS_MAX_LIMIT}`;
const ManagerRecordsQuerySchema = v.object({
  limit: v.optional(v.pipe(v.string(LIMIT_RULE), v.regex(/^\d+$/, LIMIT_RULE), v.transform(Number), v.minValue(1, LIMIT_RULE), v.maxValue(RECORDS_MAX_LIMIT, LIMIT_RULE)), String(RECORDS_DEFAULT_LIMIT)),
  cursor: v.optional(v.pipe(v.string(), v.nonEmpty("must not be empty"))),
  user_id: v.optional(v.pipe(v.string(), v.nonEmpty("must not be empty"))),
  unassigned: v.optional(v.picklist(["true"], "must be true when given")),
});

function managerCollection(entity: string): ManagerCollection {
  if (!(MANAGER_COLLECTIONS as readonly string[]).includes(entity)) throw new NotFoundError(`no manager record collection ${entity}; one of ${MANAGER_COLLECTIONS.join(", ")}`);
  return entity as ManagerCollection;
}

/** Whether a stored record is one the row's list may show: not a deleted lead, and (for a user's row) still theirs. */
const belongs = (doc: Record<string, unknown> | null, key: RowKey): doc is Record<string, unknown> =>
  doc !== null && doc["is_deleted"] !== true && (key.kind === "unassigned" || doc["responsible_user_id"] === key.id);

/**
 * GET /analytics/connections/{id}/{leads|tasks|calls}: a row's records, with the
 * records route's paging (limit, cursor). A MOP gets their own; the owner and
 * ROP name the row (`user_id`, or `unassigned=true`). Each record is read as
 * stored now and shown only while it is still the row's.
 */
export async function listManagerRecords(
  deps: ApiDeps,
  session: Session,
  id: string,
  entity: string,
  query: Readonly<Record<string, string | undefined>>,
): Promise<RecordsPage> {
  const connection = await findConnection(deps, session.businessAccountId, id);
  const collection = managerCollection(entity);
  const { limit, cursor, user_id: userId, unassigned } = parseFields(ManagerRecordsQuerySchema, query);
  const scope = await visibleRow(deps, session, connection);
  let key: RowKey;
  if (scope !== "every") {
    // A MOP naming someone else's row finds nothing, as with another manager's record.
    if ((userId !== undefined && !sameKey(rowKeyOf(userId), scope)) || unassigned !== undefined) throw new NotFoundError("no such manager's records");
    key = scope;
  } else if (unassigned !== undefined) key = UNASSIGNED;
  else if (userId !== undefined) key = rowKeyOf(userId);
  else throw new InvalidFieldError("user_id", "is required: the source user whose records to list (or unassigned=true)");
  if (key.kind === "user" && !deps.keySpace.isStorableId(key.id)) throw new NotFoundError("no such manager");
  const page = await deps.managers.listIds(id, key, collection, { limit, cursor: cursor ?? null });
  const stored = await Promise.all(page.ids.map((recordId) => deps.records.getRecord(id, collection, [recordId])));
  return { data: stored.map((entry) => entry.record).filter((doc): doc is Record<string, unknown> => belongs(doc, key)), next_cursor: page.nextCursor };
}

/** GET /analytics/connections/{id}/{collection}/{recordId}: one record the session may see; anyone else's is a 404. */
export async function getManagerRecord(
  deps: ApiDeps,
  session: Session,
  id: string,
  entity: string,
  recordId: string,
): Promise<{ readonly record: Record<string, unknown> }> {
  const connection = await findConnection(deps, session.businessAccountId, id);
  const collection = managerCollection(entity);
  const scope = await visibleRow(deps, session, connection);
  const missing = () => new NotFoundError(`no ${collection} record ${recordId.slice(0, 40)}`);
  if (!deps.keySpace.isStorableId(recordId)) throw missing();
  const { record } = await deps.records.getRecord(id, collection, [recordId]);
  if (record === null || record["is_deleted"] === true) throw missing();
  if (scope !== "every" && !belongs(record, scope)) throw missing();
  return { record };
}
