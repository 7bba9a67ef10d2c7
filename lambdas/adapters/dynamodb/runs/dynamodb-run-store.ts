import {
  BatchGetItemCommand,
  ConditionalCheckFailedException,
  GetItemCommand,
  TransactWriteItemsCommand,
  TransactionCanceledException,
  UpdateItemCommand,
  type AttributeValue,
  type Update,
} from "@aws-sdk/client-dynamodb";
import { queryAll } from "../table/query-all";
import { DynamoDbTableAdapter } from "../table/dynamodb-table-adapter";
import type { SummaryEntity } from "../../../domain/core/entities";
import { StoreUnavailableError } from "../../../domain/core/errors";
import type { BeginResult, EntitiesMove, EntityOutcome, NewRun, RunStore } from "../../../domain/core/ports/run-store";
import type { RunLock } from "../../../domain/core/run-lock";
import type { RunSummary, RunWait } from "../../../domain/core/run-summary";
import type { AuditSummary } from "../../../domain/core/audit-summary";
import { runModeOf, type RunMode } from "../../../domain/core/run-mode";
import { lockKey } from "./run-item/run-keys";
import { getLockRequest, getRunRequest, listRunsRequest, parseLockItem, readLockItem, readRunItem } from "./run-item/run-codec";
import { BEGIN_LOCK_INDEX, BEGIN_RUN_INDEX, beginTransaction, ownLockUpdate } from "./run-item/lock-writes";
import { FINISH_LOCK_INDEX, FINISH_RUN_INDEX, entitiesMovedUpdate, entityWaitedUpdate, finishTransaction, finishUpdate, type RunOutcome } from "./run-item/progress-writes";
import { auditEntityClosedUpdate, readAuditItem } from "./run-item/audit-rows";

/** Keys in one BatchGetItem (DynamoDB's limit). */
const BATCH_GET_MAX_KEYS = 100;
/** BatchGetItem calls for one set of keys before its unprocessed keys become StoreUnavailableError. */
const BATCH_GET_ATTEMPTS = 5;
/**
 * BatchGetItems of run locks in flight at once: a page of DISPATCH_PAGE_SIZE (1,000) locks is one wave. Each lock is
 * its own partition, so the calls share no partition's throughput; 10 also stays far below the SDK's 50 sockets.
 */
const LOCK_READS_AT_ONCE = 10;

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

/** Upper bound of the random wait before retrying a transaction that conflicted with another one on the lock. */
const CONFLICT_BACKOFF_MS = 50;

type Item = Record<string, AttributeValue>;

/**
 * RunStore on the single DynamoDB table. What it writes, and under which
 * conditions, is ./run-item/'s; this file sends it and reads the answers.
 *
 * The lock rule, kept simple on purpose: begin() takes the lock only when no
 * lock item exists, or when `replacing` names the run id that holds it. A lock
 * whose lease has passed is NOT taken by begin on its own: the caller decides
 * that its run is dead (core/run-lock.ts runLiveness) and passes that run id
 * as `replacing`. The replaced run's summary is left as it is (still
 * `running`); closing it is the caller's (finish() on it updates the summary
 * and, the lock now being another run's, leaves the lock alone).
 *
 * Progress updates (entityStarted, entityFinished, finish) require the run
 * summary to exist and throw RunNotFoundError otherwise; once the run has
 * finished they change nothing. A page's progress is written by the record
 * store, in the page's last transaction (../records/page-transactions.ts).
 * Busy DynamoDB errors become StoreUnavailableError (DynamoDbTableAdapter); others propagate unchanged.
 */
export class DynamoDbRunStore extends DynamoDbTableAdapter implements RunStore {
  /** One transaction (run-item/lock-writes.ts beginTransaction); when the lock condition fails, nothing is written and the holder is returned. */
  async begin(run: NewRun, options?: { readonly replacing?: string }): Promise<BeginResult> {
    const input = beginTransaction(this.tableName, run, options?.replacing);
    for (let attempt = 1; attempt <= BEGIN_ATTEMPTS; attempt += 1) {
      try {
        await this.client.send(new TransactWriteItemsCommand(input));
        return { started: true };
      } catch (error) {
        if (!(error instanceof TransactionCanceledException)) throw error;
        const reasons = error.CancellationReasons ?? [];
        const lockReason = reasons[BEGIN_LOCK_INDEX];
        const runReason = reasons[BEGIN_RUN_INDEX];
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
    await this.updateOwnLock(ownLockUpdate(this.tableName, connectionId, runId, leaseUntil === undefined ? { executionRef } : { executionRef, leaseUntil }));
  }

  async heartbeat(connectionId: string, runId: string, leaseUntil: string): Promise<void> {
    await this.updateOwnLock(ownLockUpdate(this.tableName, connectionId, runId, { leaseUntil }));
  }

  async handOver(connectionId: string, runId: string, leaseUntil: string): Promise<void> {
    await this.updateOwnLock(ownLockUpdate(this.tableName, connectionId, runId, { leaseUntil, executionRef: null }));
  }

  async get(connectionId: string, runId: string): Promise<RunSummary | null> {
    const out = await this.client.send(new GetItemCommand(getRunRequest(this.tableName, connectionId, runId)));
    return out.Item === undefined ? null : readRunItem(out.Item);
  }

  /** Newest first (run ids sort by time); every run when no limit is given. */
  async list(connectionId: string, options?: { readonly limit?: number }): Promise<RunSummary[]> {
    return (await this.listItems(connectionId, "sync", options?.limit)).map(readRunItem);
  }

  async getAudit(connectionId: string, auditId: string): Promise<AuditSummary | null> {
    if (runModeOf(auditId) !== "audit") return null;
    const out = await this.client.send(new GetItemCommand(getRunRequest(this.tableName, connectionId, auditId)));
    return out.Item === undefined ? null : readAuditItem(out.Item);
  }

  async listAudits(connectionId: string, options?: { readonly limit?: number }): Promise<AuditSummary[]> {
    return (await this.listItems(connectionId, "audit", options?.limit)).map(readAuditItem);
  }

  async auditEntityClosed(
    connectionId: string,
    auditId: string,
    entity: SummaryEntity,
    closed: { readonly storedRecords: number; readonly absentIds: readonly string[] },
  ): Promise<void> {
    await this.updateRun(connectionId, auditId, auditEntityClosedUpdate(this.tableName, connectionId, auditId, entity, closed));
  }

  private async listItems(connectionId: string, mode: RunMode, limit: number | undefined): Promise<Item[]> {
    if (limit !== undefined && (!Number.isInteger(limit) || limit < 1 || limit > RUN_LIST_MAX_LIMIT)) {
      throw new RangeError(`limit must be an integer from 1 to ${RUN_LIST_MAX_LIMIT}; got ${limit}`);
    }
    return queryAll(this.client, listRunsRequest(this.tableName, connectionId, mode), limit === undefined ? {} : { limit });
  }

  async entityStarted(connectionId: string, runId: string, entity: SummaryEntity): Promise<void> {
    await this.entitiesMoved(connectionId, runId, { finished: [], outcome: { status: "succeeded" }, started: [entity] });
  }

  async entitiesMoved(connectionId: string, runId: string, move: EntitiesMove): Promise<void> {
    const update = entitiesMovedUpdate(this.tableName, connectionId, runId, move);
    if (update !== undefined) await this.updateRun(connectionId, runId, update);
  }

  async entityWaited(connectionId: string, runId: string, entity: SummaryEntity, wait: RunWait): Promise<void> {
    await this.updateRun(connectionId, runId, entityWaitedUpdate(this.tableName, connectionId, runId, entity, wait));
  }

  /** Sets the entity's final status; a failure's detail is cut to 300 characters. */
  async entityFinished(connectionId: string, runId: string, entity: SummaryEntity, outcome: EntityOutcome): Promise<void> {
    await this.entitiesMoved(connectionId, runId, { finished: [entity], outcome, started: [] });
  }

  /**
   * One transaction: the summary's final status and the lock's release
   * conditioned on its runId. When only the lock's condition fails (the lock is
   * another run's, or gone), the transaction wrote nothing, so the summary is
   * then updated on its own: the run is always finished, and another run's
   * lock is never released.
   */
  async finish(connectionId: string, runId: string, outcome: RunOutcome): Promise<void> {
    try {
      await this.client.send(new TransactWriteItemsCommand(finishTransaction(this.tableName, connectionId, runId, outcome)));
    } catch (error) {
      if (!(error instanceof TransactionCanceledException)) throw error;
      const reasons = error.CancellationReasons ?? [];
      if (reasons[FINISH_RUN_INDEX]?.Code === "ConditionalCheckFailed") return this.requireRun(connectionId, runId, error);
      if (reasons[FINISH_LOCK_INDEX]?.Code !== "ConditionalCheckFailed") throw error;
      await this.updateRun(connectionId, runId, finishUpdate(this.tableName, connectionId, runId, outcome));
    }
  }

  lock(connectionId: string): Promise<RunLock | null> {
    return this.readLock(connectionId);
  }

  async heldLocks(connectionIds: readonly string[]): Promise<{ readonly locks: readonly RunLock[]; readonly damaged: number }> {
    const unique = [...new Set(connectionIds)];
    const chunks: string[][] = [];
    for (let at = 0; at < unique.length; at += BATCH_GET_MAX_KEYS) chunks.push(unique.slice(at, at + BATCH_GET_MAX_KEYS));
    // A tick's page of 1,000 connections in one wave of BatchGetItems rather than ten calls one after another.
    const held: RunLock[] = [];
    let damaged = 0;
    for (let at = 0; at < chunks.length; at += LOCK_READS_AT_ONCE) {
      for (const chunk of await Promise.all(chunks.slice(at, at + LOCK_READS_AT_ONCE).map((ids) => this.readLocks(ids)))) {
        held.push(...chunk.locks);
        damaged += chunk.damaged;
      }
    }
    return { locks: held, damaged };
  }

  /** One BatchGetItem of at most 100 locks, its unprocessed keys asked again. */
  private async readLocks(connectionIds: readonly string[]): Promise<{ locks: RunLock[]; damaged: number }> {
    const locks: RunLock[] = [];
    let damaged = 0;
    let keys: Item[] = connectionIds.map(lockKey);
    for (let attempt = 0; keys.length > 0; attempt += 1) {
      // DynamoDB may leave keys unprocessed under load: asked again, then a retryable error for the state machine's Retry.
      if (attempt === BATCH_GET_ATTEMPTS) throw new StoreUnavailableError(`${keys.length} run locks left unprocessed after ${attempt} BatchGetItem calls`);
      const out = await this.client.send(new BatchGetItemCommand({ RequestItems: { [this.tableName]: { Keys: keys, ConsistentRead: false } } }));
      for (const item of out.Responses?.[this.tableName] ?? []) {
        // One damaged lock must not fail every tick's count: the caller decides how it counts.
        const parsed = parseLockItem(item);
        if ("lock" in parsed) locks.push(parsed.lock);
        else damaged += 1;
      }
      keys = (out.UnprocessedKeys?.[this.tableName]?.Keys ?? []) as Item[];
    }
    return { locks, damaged };
  }

  private async readLock(connectionId: string): Promise<RunLock | null> {
    const out = await this.client.send(new GetItemCommand(getLockRequest(this.tableName, connectionId)));
    return out.Item === undefined ? null : readLockItem(connectionId, out.Item);
  }

  /** Sends an update of the lock built by ownLockUpdate: its failed condition (another run's lock, or none) is a no-op. */
  private async updateOwnLock(update: Update): Promise<void> {
    try {
      await this.client.send(new UpdateItemCommand(update));
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return; // another run's lock, or none
      throw error;
    }
  }

  /**
   * Sends an update of a running run's summary; RunNotFoundError when there is
   * none, a no-op when the run has finished (the first finish wins, so a
   * superseded run that goes on cannot rewrite what the run that took over reported).
   */
  private async updateRun(connectionId: string, runId: string, update: Update): Promise<void> {
    try {
      await this.client.send(new UpdateItemCommand(update));
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

function notFound(connectionId: string, runId: string, cause: unknown): RunNotFoundError {
  return new RunNotFoundError(`run ${runId} of connection ${connectionId} does not exist`, { cause });
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
