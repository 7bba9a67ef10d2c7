import type { AttributeValue, Update } from "@aws-sdk/client-dynamodb";
import {
  ENTITY_INITIAL_STATUS,
  ENTITY_TRANSITIONS,
  RUN_TRANSITIONS,
  statusesMovingTo,
} from "../../../../domain/core/run-lifecycle";
import type { EntityRunStatus, RunStatus } from "../../../../domain/core/run-summary";
import { RUN_ATTR, runKey } from "./run-keys";

/*
 * The condition expressions of the writes that move a status, derived from
 * the run's lifecycle (domain/core/run-lifecycle.ts), so that a write the
 * tables do not allow is refused by DynamoDB, atomically, and changes nothing.
 */

/** A piece of a ConditionExpression and the values it names. */
export interface ConditionPart {
  readonly expression: string;
  readonly values: Record<string, AttributeValue>;
}

/** The statuses a run may still move from: a run in one of them has not ended. */
export const LIVE_RUN_STATUSES = (Object.keys(RUN_TRANSITIONS) as RunStatus[]).filter((status) => RUN_TRANSITIONS[status].length > 0);

/** `path` holds one of `statuses` (a missing one reads as `missingAs`); values named `:<prefix>_<status>`. */
function statusIn<S extends string>(path: string, statuses: readonly S[], prefix: string, missingAs?: S): ConditionPart {
  if (statuses.length === 0) throw new TypeError(`no status may move there: ${path} cannot be written`);
  const values = Object.fromEntries(statuses.map((status) => [`:${prefix}_${status}`, { S: status }]));
  const list = `${path} IN (${Object.keys(values).join(", ")})`;
  const missing = missingAs !== undefined && statuses.includes(missingAs);
  return { expression: missing ? `(attribute_not_exists(${path}) OR ${list})` : list, values };
}

/** The run has not ended (`path`: the summary's status). */
export function runLiveCondition(path: string): ConditionPart {
  return statusIn(path, LIVE_RUN_STATUSES, "run");
}

/** The run may move to `to` (`path`: the summary's status). */
export function runMoveCondition(path: string, to: RunStatus): ConditionPart {
  return statusIn(path, statusesMovingTo<RunStatus>(RUN_TRANSITIONS, to), "run");
}

/** An entity row may move to `to` (`path`: the row's status; a row with none reads as pending, as the codec reads it). */
export function entityMoveCondition(path: string, to: EntityRunStatus): ConditionPart {
  return statusIn(path, statusesMovingTo<EntityRunStatus>(ENTITY_TRANSITIONS, to), "entity", ENTITY_INITIAL_STATUS);
}

export type UpdateParts = Pick<Update, "UpdateExpression" | "ExpressionAttributeNames" | "ExpressionAttributeValues">;

/**
 * An update of a run summary that applies only while the run has not ended
 * (a failed condition: a missing summary, or a finished run), and, when
 * given, only while `also` holds.
 */
export function liveSummaryUpdate(tableName: string, connectionId: string, runId: string, update: UpdateParts, also?: ConditionPart): Update {
  const live = runLiveCondition("#status");
  return {
    TableName: tableName,
    Key: runKey(connectionId, runId),
    UpdateExpression: update.UpdateExpression,
    ConditionExpression: `attribute_exists(#pk) AND ${live.expression}${also === undefined ? "" : ` AND ${also.expression}`}`,
    ExpressionAttributeNames: { ...update.ExpressionAttributeNames, "#pk": RUN_ATTR.pk, "#status": RUN_ATTR.status },
    ExpressionAttributeValues: { ...update.ExpressionAttributeValues, ...live.values, ...also?.values },
  };
}
