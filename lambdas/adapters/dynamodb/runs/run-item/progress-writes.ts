import type { AttributeValue, TransactWriteItemsCommandInput, Update } from "@aws-sdk/client-dynamodb";
import { marshall } from "@aws-sdk/util-dynamodb";
import type { SummaryEntity } from "../../../../domain/core/entities";
import { cutDetail } from "../../../../domain/core/errors";
import type { PageRun } from "../../../../domain/core/ports/record-store";
import type { EntitiesMove, RunEnd } from "../../../../domain/core/ports/run-store";
import type { RunWait } from "../../../../domain/core/run-summary";
import { auditPageProgress } from "./audit-rows";
import { pageLockFence, releaseLockDelete } from "./lock-writes";
import { FINDING_ATTR_PREFIX, requireCount } from "./run-codec";
import { MAX_RECORDED_WAITS, RUN_ATTR, entityMapKey, runExpiresAt, runKey } from "./run-keys";
import { entityMoveCondition, liveSummaryUpdate, runLiveCondition, runMoveCondition, type ConditionPart } from "./status-conditions";

/* The summary's writes: rows that move, waits, a page's progress, and the finish (the first one wins). */

/**
 * Rows that end (with one outcome; the error cut to 300 characters) and rows
 * that start, in one write; undefined when both lists are empty (nothing to
 * write). Each row's move must be one the lifecycle allows from the status it
 * holds, or the write changes nothing (status-conditions.ts).
 */
export function entitiesMovedUpdate(tableName: string, connectionId: string, runId: string, move: EntitiesMove): Update | undefined {
  const sets: string[] = [];
  const moves: ConditionPart[] = [];
  const names: Record<string, string> = { "#entities": RUN_ATTR.entities, "#status": RUN_ATTR.entityStatus };
  const values: Record<string, AttributeValue> = {};
  move.finished.forEach((entity, index) => {
    names[`#f${index}`] = entityMapKey(entity);
    sets.push(`#entities.#f${index}.#status = :finished`, `#entities.#f${index}.#error = :error`, `#entities.#f${index}.#failure = :failure`);
    moves.push(entityMoveCondition(`#entities.#f${index}.#status`, move.outcome.status));
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
    sets.push(`#entities.#s${index}.#status = :started`);
    moves.push(entityMoveCondition(`#entities.#s${index}.#status`, "running"));
  });
  if (move.started.length > 0) values[":started"] = { S: "running" };
  if (sets.length === 0) return undefined;
  const allowed: ConditionPart = {
    expression: moves.map((part) => part.expression).join(" AND "),
    values: Object.assign({}, ...moves.map((part) => part.values)) as Record<string, AttributeValue>,
  };
  return liveSummaryUpdate(tableName, connectionId, runId, { UpdateExpression: `SET ${sets.join(", ")}`, ExpressionAttributeNames: names, ExpressionAttributeValues: values }, allowed);
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
  return liveSummaryUpdate(
    tableName,
    connectionId,
    runId,
    {
      UpdateExpression: "SET #entities.#entity.#waits = list_append(if_not_exists(#entities.#entity.#waits, :none), :wait)",
      ExpressionAttributeNames: { "#entities": RUN_ATTR.entities, "#entity": entityMapKey(entity), "#waits": RUN_ATTR.entityWaits },
      ExpressionAttributeValues: { ":none": { L: [] }, ":wait": { L: [item] } },
    },
    {
      expression: "(attribute_not_exists(#entities.#entity.#waits) OR size(#entities.#entity.#waits) < :max)",
      values: { ":max": { N: String(MAX_RECORDED_WAITS) } },
    },
  );
}

export type RunOutcome = RunEnd;

/** The summary's final status and finish time, only while the run may move there (the first finish wins). */
export function finishUpdate(tableName: string, connectionId: string, runId: string, outcome: RunOutcome): Update {
  const move = runMoveCondition("#status", outcome.status);
  return {
    TableName: tableName,
    Key: runKey(connectionId, runId),
    // A summary begun before retention existed has no expiry: it gets one counted from its finish.
    UpdateExpression: "SET #status = :status, #finishedAt = :finishedAt, #expiresAt = if_not_exists(#expiresAt, :expiresAt)",
    ConditionExpression: `attribute_exists(#pk) AND ${move.expression}`,
    ExpressionAttributeNames: { "#pk": RUN_ATTR.pk, "#status": RUN_ATTR.status, "#finishedAt": RUN_ATTR.finishedAt, "#expiresAt": RUN_ATTR.expiresAt },
    ExpressionAttributeValues: {
      ...move.values,
      ":status": { S: outcome.status },
      ":finishedAt": { S: outcome.finishedAt },
      ":expiresAt": { N: String(runExpiresAt(outcome.finishedAt)) },
    },
  };
}

/** Indexes of finishTransaction's actions, for its cancellation reasons. */
export const FINISH_RUN_INDEX = 0;
export const FINISH_LOCK_INDEX = 1;

/** finish(): the summary's finishUpdate and the Delete of the lock, conditioned on this run holding it. */
export function finishTransaction(tableName: string, connectionId: string, runId: string, outcome: RunOutcome): TransactWriteItemsCommandInput {
  return { TransactItems: [{ Update: finishUpdate(tableName, connectionId, runId, outcome) }, { Delete: releaseLockDelete(tableName, connectionId, runId) }] };
}

/**
 * The run's actions in a page's transactions: the lock's `check` and `lease`
 * (lock-writes.ts pageLockFence), and `progress`, the page counted in the
 * summary only when its number is above the last one counted, so a page
 * replayed after it committed counts once.
 */
export function pageFence(tableName: string, connectionId: string, run: PageRun) {
  const records = requireCount("records", run.records);
  const stages = requireCount("stages", run.stages);
  const unresolved = requireCount("unresolvedWonLost", run.unresolvedWonLost);
  if (!Number.isSafeInteger(run.page) || run.page < 1) throw new RangeError(`page must be an integer >= 1; got ${run.page}`);

  const adds = ["#entities.#entity.#pages :one", "#entities.#entity.#records :records", "#unresolved :unresolved"];
  const sets = ["#entities.#entity.#lastPage = :page"];
  const live = runLiveCondition("#status");
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
    ...live.values,
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
    const audit = auditPageProgress(run.audit);
    adds.push(...audit.adds);
    sets.push(...audit.sets);
    Object.assign(names, audit.names);
    Object.assign(values, audit.values);
  }
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
    ConditionExpression: `${live.expression} AND (attribute_not_exists(#entities.#entity.#lastPage) OR #entities.#entity.#lastPage < :page)`,
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
  };
  return { ...pageLockFence(tableName, connectionId, run.runId, run.leaseUntil), progress };
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
