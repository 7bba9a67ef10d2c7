import type { AttributeValue, TransactWriteItemsCommandInput, Update } from "@aws-sdk/client-dynamodb";
import type { NewRun } from "../../../../domain/core/ports/run-store";
import { newRunItem } from "./run-codec";
import { RUN_ATTR, lockKey } from "./run-keys";

/* The lock's writes: taken, leased, fenced, released. */

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

/** finish()'s release: the Delete of the lock, conditioned on this run holding it. */
export function releaseLockDelete(tableName: string, connectionId: string, runId: string) {
  return {
    TableName: tableName,
    Key: lockKey(connectionId),
    ConditionExpression: LOCK_HELD,
    ExpressionAttributeNames: { "#runId": RUN_ATTR.lockRunId },
    ExpressionAttributeValues: { ":runId": { S: runId } },
  };
}

/**
 * A page's fence on the lock: `check`, in every transaction of the page (this
 * run holds the lock, and its watermarks were not reset under it), and
 * `lease`, the same fence extending the lease, in the last one.
 */
export function pageLockFence(tableName: string, connectionId: string, runId: string, leaseUntil: string) {
  const key = lockKey(connectionId);
  const fenced = {
    ConditionExpression: `${LOCK_HELD} AND attribute_not_exists(#reset)`,
    ExpressionAttributeNames: { "#runId": RUN_ATTR.lockRunId, "#reset": RUN_ATTR.lockWatermarksReset },
    ExpressionAttributeValues: { ":runId": { S: runId } },
  };
  const check = { TableName: tableName, Key: key, ...fenced };
  const lease = {
    TableName: tableName,
    Key: key,
    UpdateExpression: "SET #leaseUntil = :leaseUntil",
    ...fenced,
    ExpressionAttributeNames: { ...fenced.ExpressionAttributeNames, "#leaseUntil": RUN_ATTR.lockLeaseUntil },
    ExpressionAttributeValues: { ...fenced.ExpressionAttributeValues, ":leaseUntil": { S: leaseUntil } },
  };
  return { check, lease };
}
