import {
  BatchGetItemCommand,
  ConditionalCheckFailedException,
  GetItemCommand,
  QueryCommand,
  TransactWriteItemsCommand,
  TransactionCanceledException,
  UpdateItemCommand,
  type AttributeValue,
  type DynamoDBClient,
  type TransactWriteItemsCommandInput,
  type UpdateItemCommandInput,
} from "@aws-sdk/client-dynamodb";
import { marshall, unmarshall } from "@aws-sdk/util-dynamodb";
import * as v from "valibot";
import { atStoreEdge } from "../aws/aws-busy-errors";
import { SUMMARY_ENTITIES, type SummaryEntity } from "../core/entities";
import { cutDetail, StoreUnavailableError } from "../core/errors";
import type { BeginResult, EntitiesMove, NewRun, RunStore } from "../core/ports/run-store";
import { RunLockSchema, type RunLock } from "../core/run-lock";
import { EntityProgressSchema, RunSummarySchema, type EntityProgress, type RunSummary, type RunWait } from "../core/run-summary";
import {
  LOCK_SORT_KEY,
  RUN_ATTR,
  entityMapKey,
  runLockPartitionKey,
  runExpiresAt,
  runPartitionKey,
  runSortKey,
} from "./run-keys";

export interface DynamoDbRunStoreOptions {
  /** Injected: the store never builds a client (endpoint, credentials and retries are the caller's). */
  readonly client: DynamoDBClient;
  readonly tableName: string;
}

/** Keys in one BatchGetItem (DynamoDB's limit). */
const BATCH_GET_MAX_KEYS = 100;
/** BatchGetItem calls for one set of keys before its unprocessed keys become StoreUnavailableError. */
const BATCH_GET_ATTEMPTS = 5;

/** An update (progress, finish) for a run whose summary does not exist. */
export class RunNotFoundError extends Error {
  override readonly name = "RunNotFoundError";
}

/** begin() with a run id that already has a summary: run ids are never reused. */
export class RunAlreadyExistsError extends Error {
  override readonly name = "RunAlreadyExistsError";
}

/** list() accepts a limit of 1..RUN_LIST_MAX_LIMIT. */
export const RUN_LIST_MAX_LIMIT = 1000;
/** Tries of begin's transaction when the lock changes under it (released between the failed condition and the read, or a transaction conflict). */
const BEGIN_ATTEMPTS = 5;
/** Waits kept per entity in a run summary; later ones are not recorded (the sync itself is unaffected). */
export const MAX_RECORDED_WAITS = 25;

/** Upper bound of the random wait before retrying a transaction that conflicted with another one on the lock. */
const CONFLICT_BACKOFF_MS = 50;

type Item = Record<string, AttributeValue>;

/** A run summary item whose attributes do not make a RunSummary (written by something else, or damaged). */
export class CorruptRunItemError extends Error {
  override readonly name = "CorruptRunItemError";
}

/**
 * A run summary as stored: the summary's own fields under their own names
 * (RUN_ATTR), with `entities` a map keyed by entity name (so a page's progress
 * is one UpdateItem). A row or a count not written yet reads as its start value.
 */
const { entity: _entity, ...progressFields } = EntityProgressSchema.entries;
const StoredProgressSchema = v.object({
  status: v.optional(progressFields.status, "pending"),
  pages: v.optional(progressFields.pages, 0),
  records: v.optional(progressFields.records, 0),
  error: v.optional(progressFields.error, null),
  waits: v.optional(progressFields.waits, []),
});
const { entities: _entities, ...summaryFields } = RunSummarySchema.entries;
const RunItemSchema = v.object({
  ...summaryFields,
  finished_at: v.optional(summaryFields.finished_at, null),
  unresolved_won_lost: v.optional(summaryFields.unresolved_won_lost, 0),
  entities: v.optional(v.record(v.string(), StoredProgressSchema), {}),
});

/** Updates of a run summary apply only while it is running (names #pk, #status; value :running). */
const RUNNING_CONDITION = "attribute_exists(#pk) AND #status = :running";

/**
 * RunStore on the single DynamoDB table (key layout: ./run-keys.ts).
 *
 * The lock rule, kept simple on purpose: begin() takes the lock only when no
 * lock item exists, or when `replacing` names the run id that holds it. A lock
 * whose lease has passed is NOT taken by begin on its own: the caller decides
 * that its run is dead (e.g. its execution is no longer running) and passes
 * that run id as `replacing`. The replaced run's summary is left as it is
 * (still `running`); closing it is the caller's (finish() on it updates the
 * summary and, the lock now being another run's, leaves the lock alone).
 *
 * Progress updates (entityStarted, entityFinished, finish) require the run
 * summary to exist and throw RunNotFoundError otherwise; once the run has
 * finished they change nothing. A page's progress is written by the record
 * store, in the page's last transaction (../store/page-transactions.ts).
 * Other DynamoDB errors propagate unchanged.
 */
export class DynamoDbRunStore implements RunStore {
  /** Busy DynamoDB errors become StoreUnavailableError here, at the adapter's edge. */
  private readonly client: Pick<DynamoDBClient, "send">;
  private readonly tableName: string;

  constructor(options: DynamoDbRunStoreOptions) {
    this.client = atStoreEdge(options.client);
    this.tableName = options.tableName;
  }

  /**
   * One TransactWriteItems: Put of the lock (condition: no lock, or, with
   * `replacing`, no lock or a lock held by that run id) and Put of the new
   * summary (condition: the run id is new). When the lock condition fails,
   * nothing is written and the current holder is returned.
   */
  async begin(run: NewRun, options?: { readonly replacing?: string }): Promise<BeginResult> {
    const replacing = options?.replacing;
    const lockCondition =
      replacing === undefined ? "attribute_not_exists(#pk)" : "attribute_not_exists(#pk) OR #runId = :replacing";
    const lockNames: Record<string, string> = { "#pk": RUN_ATTR.pk };
    if (replacing !== undefined) lockNames["#runId"] = RUN_ATTR.lockRunId;
    const input: TransactWriteItemsCommandInput = {
      TransactItems: [
        {
          Put: {
            TableName: this.tableName,
            Item: {
              [RUN_ATTR.pk]: { S: runLockPartitionKey(run.connectionId) },
              [RUN_ATTR.sk]: { S: LOCK_SORT_KEY },
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
            TableName: this.tableName,
            Item: newRunItem(run),
            ConditionExpression: "attribute_not_exists(#pk)",
            ExpressionAttributeNames: { "#pk": RUN_ATTR.pk },
          },
        },
      ],
    };

    for (let attempt = 1; attempt <= BEGIN_ATTEMPTS; attempt += 1) {
      try {
        await this.client.send(new TransactWriteItemsCommand(input));
        return { started: true };
      } catch (error) {
        if (!(error instanceof TransactionCanceledException)) throw error;
        const [lockReason, runReason] = error.CancellationReasons ?? [];
        if (lockReason?.Code === "ConditionalCheckFailed") {
          const holder = await this.readLock(run.connectionId);
          if (holder !== null) return { started: false, holder };
          continue; // released between the transaction and the read: try again
        }
        if (runReason?.Code === "ConditionalCheckFailed") {
          throw new RunAlreadyExistsError(`run ${run.runId} of connection ${run.connectionId} already exists`, {
            cause: error,
          });
        }
        if (lockReason?.Code === "TransactionConflict" || runReason?.Code === "TransactionConflict") {
          await sleep(Math.random() * CONFLICT_BACKOFF_MS * attempt);
          continue;
        }
        throw error;
      }
    }
    throw new Error(`run lock of connection ${run.connectionId} kept changing; begin gave up after ${BEGIN_ATTEMPTS} tries`);
  }

  /** Records the execution on the lock; a no-op when runId no longer holds the lock (as heartbeat). */
  async setExecution(connectionId: string, runId: string, executionRef: string, leaseUntil?: string): Promise<void> {
    if (leaseUntil === undefined) {
      await this.updateOwnLock(connectionId, runId, {
        UpdateExpression: "SET #executionRef = :executionRef",
        ExpressionAttributeNames: { "#executionRef": RUN_ATTR.lockExecutionRef },
        ExpressionAttributeValues: { ":executionRef": { S: executionRef } },
      });
      return;
    }
    await this.updateOwnLock(connectionId, runId, {
      UpdateExpression: "SET #executionRef = :executionRef, #leaseUntil = :leaseUntil",
      ExpressionAttributeNames: { "#executionRef": RUN_ATTR.lockExecutionRef, "#leaseUntil": RUN_ATTR.lockLeaseUntil },
      ExpressionAttributeValues: { ":executionRef": { S: executionRef }, ":leaseUntil": { S: leaseUntil } },
    });
  }

  async heartbeat(connectionId: string, runId: string, leaseUntil: string): Promise<void> {
    await this.updateOwnLock(connectionId, runId, {
      UpdateExpression: "SET #leaseUntil = :leaseUntil",
      ExpressionAttributeNames: { "#leaseUntil": RUN_ATTR.lockLeaseUntil },
      ExpressionAttributeValues: { ":leaseUntil": { S: leaseUntil } },
    });
  }

  async handOver(connectionId: string, runId: string, leaseUntil: string): Promise<void> {
    await this.updateOwnLock(connectionId, runId, {
      UpdateExpression: "SET #leaseUntil = :leaseUntil, #executionRef = :none",
      ExpressionAttributeNames: { "#leaseUntil": RUN_ATTR.lockLeaseUntil, "#executionRef": RUN_ATTR.lockExecutionRef },
      ExpressionAttributeValues: { ":leaseUntil": { S: leaseUntil }, ":none": { NULL: true } },
    });
  }

  async get(connectionId: string, runId: string): Promise<RunSummary | null> {
    const out = await this.client.send(
      new GetItemCommand({ TableName: this.tableName, Key: runKey(connectionId, runId), ConsistentRead: true }),
    );
    return out.Item === undefined ? null : fromRunItem(out.Item);
  }

  /** Newest first (run ids sort by time); every run when no limit is given. */
  async list(connectionId: string, options?: { readonly limit?: number }): Promise<RunSummary[]> {
    const limit = options?.limit;
    if (limit !== undefined && (!Number.isInteger(limit) || limit < 1 || limit > RUN_LIST_MAX_LIMIT)) {
      throw new RangeError(`limit must be an integer from 1 to ${RUN_LIST_MAX_LIMIT}; got ${limit}`);
    }
    const runs: RunSummary[] = [];
    let startKey: Item | undefined;
    do {
      const out = await this.client.send(
        new QueryCommand({
          TableName: this.tableName,
          KeyConditionExpression: "#pk = :pk",
          ExpressionAttributeNames: { "#pk": RUN_ATTR.pk },
          ExpressionAttributeValues: { ":pk": { S: runPartitionKey(connectionId) } },
          ScanIndexForward: false,
          Limit: limit === undefined ? undefined : limit - runs.length,
          ExclusiveStartKey: startKey,
          ConsistentRead: true,
        }),
      );
      for (const item of out.Items ?? []) runs.push(fromRunItem(item));
      startKey = out.LastEvaluatedKey;
    } while (startKey !== undefined && (limit === undefined || runs.length < limit));
    return runs;
  }

  async entityStarted(connectionId: string, runId: string, entity: SummaryEntity): Promise<void> {
    await this.entitiesMoved(connectionId, runId, { finished: [], outcome: { status: "succeeded", error: null }, started: [entity] });
  }

  async entitiesMoved(connectionId: string, runId: string, move: EntitiesMove): Promise<void> {
    const sets: string[] = [];
    const names: Record<string, string> = { "#entities": RUN_ATTR.entities, "#status": RUN_ATTR.entityStatus };
    const values: Record<string, AttributeValue> = {};
    move.finished.forEach((entity, index) => {
      names[`#f${index}`] = entityMapKey(entity);
      sets.push(`#entities.#f${index}.#status = :finished`, `#entities.#f${index}.#error = :error`);
    });
    if (move.finished.length > 0) {
      names["#error"] = RUN_ATTR.entityError;
      values[":finished"] = { S: move.outcome.status };
      values[":error"] = move.outcome.error === null ? { NULL: true } : { S: cutDetail(move.outcome.error) };
    }
    move.started.forEach((entity, index) => {
      names[`#s${index}`] = entityMapKey(entity);
      sets.push(`#entities.#s${index}.#status = :running`);
    });
    if (sets.length === 0) return;
    await this.updateRun(connectionId, runId, { UpdateExpression: `SET ${sets.join(", ")}`, ExpressionAttributeNames: names, ExpressionAttributeValues: values });
  }

  async entityWaited(connectionId: string, runId: string, entity: SummaryEntity, wait: RunWait): Promise<void> {
    const names = { "#entities": RUN_ATTR.entities, "#entity": entityMapKey(entity), "#waits": RUN_ATTR.entityWaits };
    const item: AttributeValue = {
      M: {
        kind: { S: wait.kind },
        page: { N: String(wait.page) },
        attempt: { N: String(wait.attempt) },
        seconds: { N: String(wait.seconds) },
        retry_after_seconds: wait.retry_after_seconds === null ? { NULL: true } : { N: String(wait.retry_after_seconds) },
        at: { S: wait.at },
        detail: wait.detail === null ? { NULL: true } : { S: cutDetail(wait.detail) },
      },
    };
    try {
      await this.client.send(
        new UpdateItemCommand({
          TableName: this.tableName,
          Key: runKey(connectionId, runId),
          UpdateExpression: "SET #entities.#entity.#waits = list_append(if_not_exists(#entities.#entity.#waits, :none), :wait)",
          // Bounded, so a source that throttles every page cannot grow the summary item without end.
          ConditionExpression: `${RUNNING_CONDITION} AND (attribute_not_exists(#entities.#entity.#waits) OR size(#entities.#entity.#waits) < :max)`,
          ExpressionAttributeNames: { ...names, "#pk": RUN_ATTR.pk, "#status": RUN_ATTR.status },
          ExpressionAttributeValues: { ":none": { L: [] }, ":wait": { L: [item] }, ":max": { N: String(MAX_RECORDED_WAITS) }, ":running": { S: "running" } },
        }),
      );
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return this.requireRun(connectionId, runId, error);
      throw error;
    }
  }

  /** Sets the entity's final status; the error is cut to 300 characters. */
  async entityFinished(
    connectionId: string,
    runId: string,
    entity: SummaryEntity,
    outcome: { readonly status: "succeeded" | "failed"; readonly error: string | null },
  ): Promise<void> {
    await this.updateRun(connectionId, runId, {
      UpdateExpression: "SET #entities.#entity.#status = :status, #entities.#entity.#error = :error",
      ExpressionAttributeNames: {
        "#entities": RUN_ATTR.entities,
        "#entity": entityMapKey(entity),
        "#status": RUN_ATTR.entityStatus,
        "#error": RUN_ATTR.entityError,
      },
      ExpressionAttributeValues: {
        ":status": { S: outcome.status },
        ":error": outcome.error === null ? { NULL: true } : { S: cutDetail(outcome.error) },
      },
    });
  }

  /**
   * One transaction: Update of the summary (status, finished_at) and Delete of
   * the lock conditioned on its runId. When only the lock's condition fails
   * (the lock is another run's, or gone), the transaction wrote nothing, so
   * the summary is then updated on its own: the run is always finished, and
   * another run's lock is never released.
   */
  async finish(
    connectionId: string,
    runId: string,
    outcome: { readonly status: "succeeded" | "failed"; readonly finishedAt: string },
  ): Promise<void> {
    const update = this.finishUpdate(connectionId, runId, outcome);
    try {
      await this.client.send(
        new TransactWriteItemsCommand({
          TransactItems: [
            { Update: update },
            {
              Delete: {
                TableName: this.tableName,
                Key: lockKey(connectionId),
                ConditionExpression: "#runId = :runId",
                ExpressionAttributeNames: { "#runId": RUN_ATTR.lockRunId },
                ExpressionAttributeValues: { ":runId": { S: runId } },
              },
            },
          ],
        }),
      );
    } catch (error) {
      if (!(error instanceof TransactionCanceledException)) throw error;
      const [runReason, lockReason] = error.CancellationReasons ?? [];
      if (runReason?.Code === "ConditionalCheckFailed") return this.requireRun(connectionId, runId, error);
      if (lockReason?.Code !== "ConditionalCheckFailed") throw error;
      await this.updateRun(connectionId, runId, update);
    }
  }

  private finishUpdate(
    connectionId: string,
    runId: string,
    outcome: { readonly status: "succeeded" | "failed"; readonly finishedAt: string },
  ) {
    return {
      TableName: this.tableName,
      Key: runKey(connectionId, runId),
      // A summary begun before retention existed has no expiry: it gets one counted from its finish.
      UpdateExpression: "SET #status = :status, #finishedAt = :finishedAt, #expiresAt = if_not_exists(#expiresAt, :expiresAt)",
      ConditionExpression: RUNNING_CONDITION,
      ExpressionAttributeNames: {
        "#pk": RUN_ATTR.pk,
        "#status": RUN_ATTR.status,
        "#finishedAt": RUN_ATTR.finishedAt,
        "#expiresAt": RUN_ATTR.expiresAt,
      },
      ExpressionAttributeValues: {
        ":status": { S: outcome.status },
        ":finishedAt": { S: outcome.finishedAt },
        ":expiresAt": { N: String(runExpiresAt(outcome.finishedAt)) },
        ":running": { S: "running" },
      },
    };
  }

  lock(connectionId: string): Promise<RunLock | null> {
    return this.readLock(connectionId);
  }

  async heldLocks(connectionIds: readonly string[]): Promise<{ readonly locks: readonly RunLock[]; readonly damaged: number }> {
    const held: RunLock[] = [];
    let damaged = 0;
    const unique = [...new Set(connectionIds)];
    for (let at = 0; at < unique.length; at += BATCH_GET_MAX_KEYS) {
      let keys: Item[] = unique.slice(at, at + BATCH_GET_MAX_KEYS).map(lockKey);
      for (let attempt = 0; keys.length > 0; attempt += 1) {
        // DynamoDB may leave keys unprocessed under load: asked again, then a retryable error for the state machine's Retry.
        if (attempt === BATCH_GET_ATTEMPTS) throw new StoreUnavailableError(`${keys.length} run locks left unprocessed after ${attempt} BatchGetItem calls`);
        const out = await this.client.send(
          new BatchGetItemCommand({ RequestItems: { [this.tableName]: { Keys: keys, ConsistentRead: false } } }),
        );
        for (const item of out.Responses?.[this.tableName] ?? []) {
          // One damaged lock must not fail every tick's count: the caller decides how it counts.
          const parsed = v.safeParse(RunLockSchema, unmarshall(item), { abortEarly: true });
          if (parsed.success) held.push(parsed.output);
          else damaged += 1;
        }
        keys = (out.UnprocessedKeys?.[this.tableName]?.Keys ?? []) as Item[];
      }
    }
    return { locks: held, damaged };
  }

  private async readLock(connectionId: string): Promise<RunLock | null> {
    const out = await this.client.send(
      new GetItemCommand({ TableName: this.tableName, Key: lockKey(connectionId), ConsistentRead: true }),
    );
    if (out.Item === undefined) return null;
    const parsed = v.safeParse(RunLockSchema, unmarshall(out.Item), { abortEarly: true });
    if (!parsed.success) {
      throw new CorruptRunItemError(`run lock of connection ${connectionId} is damaged: ${describeIssue(parsed.issues[0])}`);
    }
    return parsed.output;
  }

  /** An update of the lock that applies only while runId holds it; otherwise a no-op. */
  private async updateOwnLock(
    connectionId: string,
    runId: string,
    update: Required<Pick<UpdateItemCommandInput, "UpdateExpression" | "ExpressionAttributeNames" | "ExpressionAttributeValues">>,
  ): Promise<void> {
    try {
      await this.client.send(
        new UpdateItemCommand({
          TableName: this.tableName,
          Key: lockKey(connectionId),
          UpdateExpression: update.UpdateExpression,
          ConditionExpression: "#runId = :runId",
          ExpressionAttributeNames: { ...update.ExpressionAttributeNames, "#runId": RUN_ATTR.lockRunId },
          ExpressionAttributeValues: { ...update.ExpressionAttributeValues, ":runId": { S: runId } },
        }),
      );
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return; // another run's lock, or none
      throw error;
    }
  }

  /**
   * An update of a running run's summary; RunNotFoundError when there is none,
   * a no-op when the run has finished (the first finish wins, so a superseded
   * run that goes on cannot rewrite what the run that took over reported).
   */
  private async updateRun(
    connectionId: string,
    runId: string,
    update: Pick<UpdateItemCommandInput, "UpdateExpression" | "ExpressionAttributeNames" | "ExpressionAttributeValues">,
  ): Promise<void> {
    try {
      await this.client.send(
        new UpdateItemCommand({
          TableName: this.tableName,
          Key: runKey(connectionId, runId),
          UpdateExpression: update.UpdateExpression,
          ConditionExpression: RUNNING_CONDITION,
          ExpressionAttributeNames: { ...update.ExpressionAttributeNames, "#pk": RUN_ATTR.pk, "#status": RUN_ATTR.status },
          ExpressionAttributeValues: { ...update.ExpressionAttributeValues, ":running": { S: "running" } },
        }),
      );
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return this.requireRun(connectionId, runId, error);
      throw error;
    }
  }

  /** After a failed running-condition: RunNotFoundError when the summary is missing, else nothing (it has finished). */
  private async requireRun(connectionId: string, runId: string, cause: unknown): Promise<void> {
    if ((await this.get(connectionId, runId)) === null) throw notFound(connectionId, runId, cause);
  }
}

function runKey(connectionId: string, runId: string): Item {
  return { [RUN_ATTR.pk]: { S: runPartitionKey(connectionId) }, [RUN_ATTR.sk]: { S: runSortKey(runId) } };
}

function lockKey(connectionId: string): Item {
  return { [RUN_ATTR.pk]: { S: runLockPartitionKey(connectionId) }, [RUN_ATTR.sk]: { S: LOCK_SORT_KEY } };
}

function notFound(connectionId: string, runId: string, cause: unknown): RunNotFoundError {
  return new RunNotFoundError(`run ${runId} of connection ${connectionId} does not exist`, { cause });
}

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
      [RUN_ATTR.entities]: Object.fromEntries(SUMMARY_ENTITIES.map((entity) => [entityMapKey(entity), pending])),
      [RUN_ATTR.expiresAt]: runExpiresAt(run.startedAt),
    }),
  };
}

function fromRunItem(item: Item): RunSummary {
  const parsed = v.safeParse(RunItemSchema, unmarshall(item), { abortEarly: true });
  if (!parsed.success) {
    const where = `run item ${item[RUN_ATTR.pk]?.S ?? "?"} / ${item[RUN_ATTR.sk]?.S ?? "?"}`;
    throw new CorruptRunItemError(`${where}: ${describeIssue(parsed.issues[0])}`);
  }
  const { entities: stored, ...summary } = parsed.output;
  // In sync order, whatever the map holds: a row never written reads as pending.
  const entities = SUMMARY_ENTITIES.map(
    (entity): EntityProgress => ({ entity, ...(stored[entityMapKey(entity)] ?? v.parse(StoredProgressSchema, {})) }),
  );
  return { ...summary, entities };
}

function describeIssue(issue: v.BaseIssue<unknown>): string {
  return `${issue.path?.map((item) => String(item.key)).join(".") || "(item)"}: ${issue.message}`;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

