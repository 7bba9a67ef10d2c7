import type { AttributeValue, TransactWriteItem, Update } from "@aws-sdk/client-dynamodb";
import type { PageRun, RecordWrite } from "../../../domain/core/ports/record-store";
import { ATTR } from "./keys";

/**
 * The Update that writes one record head with its lineage, and the forms it
 * is sent again in when its condition refuses it. The conditions keep two
 * counts exact without a read: the head's `writes` (once per page of a run)
 * and the run summary's `records` (once per record of a run, however many of
 * its pages send it). A refusal returns the stored head (ALL_OLD), whose
 * last_written says which case it is:
 *
 * - written by no page of this run: the write applies, counted (the first form);
 * - last written by an earlier page of this run (a record a source sends on
 *   two pages): written again, `writes` + 1, not counted in the page's records;
 * - last written by this page (a replay): written again, neither counted,
 *   unless this page was the run's first to write it (a replay of a page
 *   whose progress never committed counts it once, there).
 *
 * Only a page that meets one of these pays the extra round; an ordinary page
 * commits in its first.
 */

type Item = Record<string, AttributeValue>;

/** Content attributes a head may lack: a Put would drop them, so the Update removes them (an audit's marks included). */
const OPTIONAL_HEAD_ATTRS = [ATTR.parts, ATTR.partsVersion, ATTR.kind, ATTR.healed, ATTR.absent] as const;

/** The first form of a sync's head: no page of this run wrote it yet. */
export const NEW_IN_RUN_CONDITION = "attribute_not_exists(#lastWritten) OR #lastWritten.#runId <> :runId";

/** Not last written by this (run, page): an earlier page's record written again, or an audit's head. */
export const WRITTEN_ONCE_CONDITION = "attribute_not_exists(#lastWritten) OR #lastWritten.#runId <> :runId OR #lastWritten.#page <> :page";

/**
 * An audit's write applies only while the store lacks the record or holds a
 * version not newer than the audit's (by the newest-first value: updated_at,
 * else created_at, then the same key): an audit never overwrites a newer one.
 */
export const HEAL_GUARD_CONDITION = "attribute_not_exists(#pk) OR #newest <= :healNewest";
/** An audit's head: the guard and the count-once condition together; its replay form keeps the guard alone. */
export const HEAL_WRITTEN_ONCE_CONDITION = `(${HEAL_GUARD_CONDITION}) AND (${WRITTEN_ONCE_CONDITION})`;

/**
 * The Update of one record head: every content attribute of `head` (what a Put
 * of it would leave), and the lineage: first_seen only if absent, last_written
 * (with the run's first page to write it), writes + 1, findings, deleted_at
 * (leads: set when first soft-deleted, removed when not), healed_by_audit when
 * an audit heals it.
 */
export function headUpdate(tableName: string, head: Item, write: RecordWrite, run: PageRun): Update {
  const names: Record<string, string> = {};
  const values: Record<string, AttributeValue> = {};
  const sets: string[] = [];
  const removes: string[] = [];
  const name = (attr: string) => {
    names[`#${attr}`] = attr;
    return `#${attr}`;
  };
  for (const [attr, value] of Object.entries(head)) {
    if (attr === ATTR.pk || attr === ATTR.sk) continue;
    values[`:${attr}`] = value;
    sets.push(`${name(attr)} = :${attr}`);
  }
  for (const attr of OPTIONAL_HEAD_ATTRS) if (head[attr] === undefined) removes.push(name(attr));

  const at: AttributeValue = { S: run.committedAt };
  const page: AttributeValue = { N: String(run.page) };
  const runId: AttributeValue = { S: run.runId };
  const sourceUpdatedAt = write.lineage?.sourceUpdatedAt ?? null;
  values[":firstSeen"] = { M: { run_id: runId, page, at } };
  values[":lastWritten"] = {
    M: { run_id: runId, page, at, source_updated_at: sourceUpdatedAt === null ? { NULL: true } : { S: sourceUpdatedAt }, [RUN_FIRST_PAGE]: page },
  };
  values[":zero"] = { N: "0" };
  values[":inc"] = { N: "1" };
  sets.push(
    `${name(ATTR.firstSeen)} = if_not_exists(#${ATTR.firstSeen}, :firstSeen)`,
    `${name(ATTR.lastWritten)} = :lastWritten`,
    `${name(ATTR.writes)} = if_not_exists(#${ATTR.writes}, :zero) + :inc`,
  );
  const findings = write.lineage?.findings ?? [];
  if (findings.length > 0) {
    values[":findings"] = { L: findings.map((rule) => ({ S: rule })) };
    sets.push(`${name(ATTR.findings)} = :findings`);
  } else removes.push(name(ATTR.findings));
  if (write.doc["is_deleted"] === true) {
    values[":at"] = at;
    sets.push(`${name(ATTR.deletedAt)} = if_not_exists(#${ATTR.deletedAt}, :at)`);
  } else removes.push(name(ATTR.deletedAt));
  const audit = write.heal?.auditId;
  if (audit !== undefined) {
    values[":healedByAudit"] = { S: audit };
    sets.push(`${name(ATTR.healedByAudit)} = :healedByAudit`);
    names["#pk"] = ATTR.pk;
    values[":healNewest"] = head[ATTR.newest]!;
  }

  const update: Update = {
    TableName: tableName,
    Key: { [ATTR.pk]: head[ATTR.pk]!, [ATTR.sk]: head[ATTR.sk]! },
    UpdateExpression: `SET ${sets.join(", ")}${removes.length > 0 ? ` REMOVE ${removes.join(", ")}` : ""}`,
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
  };
  return audit === undefined ? withCondition(update, NEW_IN_RUN_CONDITION) : withCondition(update, HEAL_WRITTEN_ONCE_CONDITION);
}

/** Where last_written keeps the page of the run that first wrote the record (not part of the lineage API). */
const RUN_FIRST_PAGE = "run_first_page";

/** A head's Update sent again after its condition refused it, and whether the page counts the record. */
export interface HeadRetry {
  readonly action: TransactWriteItem;
  /** An earlier page of this run wrote (and counted) the record: this page does not count it. */
  readonly countedEarlier: boolean;
}

/**
 * The form a refused head is sent again in, from the head the store returned
 * with the refusal (undefined when it returned none: read as a replay, as
 * before this was kept). Undefined for an action that is not a head's write.
 */
export function retryOfRefusedHead(action: TransactWriteItem, stored: Item | undefined): HeadRetry | undefined {
  const update = action.Update;
  const condition = update?.ConditionExpression;
  if (update === undefined || condition === undefined) return undefined;
  // An audit's head keeps its guard: a stored version newer than the audit's still refuses it.
  if (condition === HEAL_WRITTEN_ONCE_CONDITION) return { action: { Update: replayForm(withoutCondition(update), HEAL_GUARD_CONDITION) }, countedEarlier: false };
  if (condition !== NEW_IN_RUN_CONDITION && condition !== WRITTEN_ONCE_CONDITION) return undefined;
  const written = update.ExpressionAttributeValues?.[":lastWritten"]?.M ?? {};
  const page = written["page"]?.N;
  const before = stored?.[ATTR.lastWritten]?.M;
  const beforePage = before?.["page"]?.N ?? page;
  // A head written before the run's first page was kept: its last page is the closest known.
  const firstPage = before?.[RUN_FIRST_PAGE]?.N ?? beforePage;
  const base = withoutCondition(update);
  const lastWritten: AttributeValue = { M: { ...written, [RUN_FIRST_PAGE]: { N: firstPage ?? page ?? "0" } } };
  const carried: Update = { ...base, ExpressionAttributeValues: { ...base.ExpressionAttributeValues, ":lastWritten": lastWritten } };
  const countedEarlier = Number(firstPage) < Number(page);
  if (beforePage !== page) return { action: { Update: withCondition(carried, WRITTEN_ONCE_CONDITION) }, countedEarlier };
  return { action: { Update: replayForm(carried) }, countedEarlier };
}

/** An audit head's write, in its replay form, refused: the store holds a version newer than the audit's. */
export function isRefusedHeal(action: TransactWriteItem): boolean {
  return action.Update?.ConditionExpression === HEAL_GUARD_CONDITION;
}

/** The names and values each condition needs; ALL_OLD so that a refusal says which case it met. */
function withCondition(update: Update, condition: string): Update {
  const names: Record<string, string> = { ...update.ExpressionAttributeNames, "#lastWritten": ATTR.lastWritten, "#runId": "run_id" };
  const values: Record<string, AttributeValue> = { ...update.ExpressionAttributeValues, ":runId": update.ExpressionAttributeValues?.[":lastWritten"]?.M?.["run_id"] ?? { S: "" } };
  if (condition !== NEW_IN_RUN_CONDITION) {
    names["#page"] = "page";
    values[":page"] = update.ExpressionAttributeValues?.[":lastWritten"]?.M?.["page"] ?? { N: "0" };
  }
  return { ...update, ConditionExpression: condition, ExpressionAttributeNames: names, ExpressionAttributeValues: values, ReturnValuesOnConditionCheckFailure: "ALL_OLD" };
}

/** The update without its count-once condition and that condition's own names and values. */
function withoutCondition(update: Update): Update {
  const { "#lastWritten": _lastWritten, "#runId": _runId, "#page": _page, ...names } = update.ExpressionAttributeNames ?? {};
  const { ":runId": _run, ":page": _pageValue, ...values } = update.ExpressionAttributeValues ?? {};
  const { ConditionExpression: _condition, ReturnValuesOnConditionCheckFailure: _returned, ...rest } = update;
  return { ...rest, ExpressionAttributeNames: names, ExpressionAttributeValues: values };
}

/** The same content and lineage, `writes` not counted again; an audit's keeps its guard. */
function replayForm(update: Update, guard?: string): Update {
  const values = { ...update.ExpressionAttributeValues, ":inc": { N: "0" } };
  return { ...update, ...(guard === undefined ? {} : { ConditionExpression: guard }), ExpressionAttributeValues: values };
}
