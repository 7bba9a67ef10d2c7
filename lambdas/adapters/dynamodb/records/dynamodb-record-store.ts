import {
  ConditionalCheckFailedException,
  TransactionCanceledException,
  UpdateItemCommand,
  GetItemCommand,
  QueryCommand,
  TransactWriteItemsCommand,
  type AttributeValue,
  type TransactWriteItem,
  type TransactWriteItemsCommandInput,
} from "@aws-sdk/client-dynamodb";
import { partitionQuery, queryAll } from "../table/query-all";
import { unmarshall } from "@aws-sdk/util-dynamodb";
import * as v from "valibot";
import { DynamoDbTableAdapter } from "../table/dynamodb-table-adapter";
import { STAGE_KINDS, SYNC_ENTITIES, type Collection, type StageKind, type SyncEntity } from "../../../domain/core/entities";
import { InvalidCursorError, RunSupersededError, StoredVersionNewerError, SyncSinceChangedError } from "../../../domain/core/errors";
import type { PageWrite, RecordOrder, RecordPage, RecordStore, RecordWrite, StageKinds } from "../../../domain/core/ports/record-store";
import type { LeadStages } from "../../../domain/core/lead-history";
import { RecordLineageSchema, type RecordLineage, type RecordWithLineage } from "../../../domain/core/record-lineage";
import type { Freshness } from "../../../domain/core/freshness";
import { UNDATED_NEWEST_VALUE } from "../../../domain/core/record-newest";
import { getLockRequest, lockHolder } from "../runs/run-item/run-codec";
import { watermarksResetUpdate } from "../runs/run-item/lock-writes";
import { progressWithout, type Uncounted } from "../runs/run-item/progress-writes";
import {
  ATTR,
  newestOfSortValue,
  newestSortValue,
  recordPartitionCollection,
  recordPartitionKey,
  recordShardPartitionKeys,
  recordSortKey,
  watermarkPartitionKey,
  watermarkSortKey,
} from "./keys";
import { SORT_KEY_MAX_BYTES, utf8Bytes } from "../table/key-limits";
import { LOCK_ACTION_INDEX, PROGRESS_ACTION_INDEX, pageWritesRecords, planPage } from "./page-transactions";
import { readLeadStages, readStoredStages } from "./stored-stages";
import { isRefusedHeal, retryOfRefusedHead } from "./head-writes";
import { dropStaleParts, readRecordDoc, type PartsTable } from "./record-parts";
import { mergeShardQueries } from "../table/sharded-query";
import { readNewestHeads } from "./newest-heads";

/** listRecords accepts a limit of 1..LIST_MAX_LIMIT. */
export const LIST_MAX_LIMIT = 1000;

/**
 * RecordStore on the single DynamoDB table (key layout: ./keys.ts; how a page
 * becomes transactions: ./page-transactions.ts). Busy DynamoDB errors become
 * StoreUnavailableError (DynamoDbTableAdapter) and the state machine retries
 * the page, which is safe because commitPage is idempotent.
 */
export class DynamoDbRecordStore extends DynamoDbTableAdapter implements RecordStore {
  /** The client and table the record's parts are read and dropped through (./record-parts.ts). */
  private get parts(): PartsTable {
    return { client: this.client, tableName: this.tableName };
  }

  async getWatermark(connectionId: string, entity: SyncEntity): Promise<string | null> {
    const out = await this.client.send(
      new GetItemCommand({
        TableName: this.tableName,
        Key: { [ATTR.pk]: { S: watermarkPartitionKey(connectionId) }, [ATTR.sk]: { S: watermarkSortKey(entity) } },
        ConsistentRead: true,
      }),
    );
    return out.Item?.[ATTR.value]?.S ?? null;
  }

  async resetWatermarks(connectionId: string): Promise<void> {
    // Fence first: a run under way can then no longer write a watermark back after the deletes below.
    await this.fenceRunningRun(connectionId);
    await Promise.all(SYNC_ENTITIES.map((entity) => this.forgetWatermark(connectionId, entity)));
  }

  /** One entity's watermark, behind the same fence as resetWatermarks (docs/run-safety.md). */
  async resetWatermark(connectionId: string, entity: SyncEntity): Promise<void> {
    await this.fenceRunningRun(connectionId);
    await this.forgetWatermark(connectionId, entity);
  }

  /**
   * Removes the entity's watermark and listing hash, and keeps its data_as_of:
   * the records stay, and so does the time they were last brought up to date.
   */
  private async forgetWatermark(connectionId: string, entity: SyncEntity): Promise<void> {
    try {
      await this.client.send(
        new UpdateItemCommand({
          TableName: this.tableName,
          Key: { [ATTR.pk]: { S: watermarkPartitionKey(connectionId) }, [ATTR.sk]: { S: watermarkSortKey(entity) } },
          UpdateExpression: "REMOVE #value, #listing",
          ConditionExpression: "attribute_exists(#pk)",
          ExpressionAttributeNames: { "#pk": ATTR.pk, "#value": ATTR.value, "#listing": ATTR.listing },
        }),
      );
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error; // never synced: nothing to forget
    }
  }

  /** Each synced entity's data_as_of and watermark: one Query of the connection's watermark items. */
  async getFreshness(connectionId: string): Promise<Freshness> {
    const out = await this.client.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: "#pk = :pk",
        ExpressionAttributeNames: { "#pk": ATTR.pk },
        ExpressionAttributeValues: { ":pk": { S: watermarkPartitionKey(connectionId) } },
        ConsistentRead: true,
      }),
    );
    const bySk = new Map((out.Items ?? []).map((item) => [item[ATTR.sk]?.S, item]));
    return Object.fromEntries(
      SYNC_ENTITIES.map((entity) => {
        const item = bySk.get(watermarkSortKey(entity));
        return [entity, { data_as_of: item?.[ATTR.dataAsOf]?.S ?? null, watermark: item?.[ATTR.value]?.S ?? null }];
      }),
    ) as Freshness;
  }

  async getStageKinds(connectionId: string): Promise<StageKinds> {
    const kinds = new Map<string, Map<string, StageKind>>();
    // Order does not matter here: every shard (stages have one: keys.ts) is read whole, side by side.
    const shards = await Promise.all(recordShardPartitionKeys(connectionId, "stages").map((pk) => this.stageKindItems(pk)));
    for (const item of shards.flat()) {
      const kind = item[ATTR.kind]?.S;
      const key = parseKey(item[ATTR.key]?.S);
      if (key === undefined || key.length !== 2 || !isStageKind(kind)) continue;
      const [pipelineId, stageId] = key as [string, string];
      let stages = kinds.get(pipelineId);
      if (stages === undefined) kinds.set(pipelineId, (stages = new Map()));
      stages.set(stageId, kind);
    }
    return kinds;
  }

  async getUserIds(connectionId: string): Promise<ReadonlySet<string>> {
    const shards = await Promise.all(recordShardPartitionKeys(connectionId, "users").map((pk) => this.headItems(pk, [ATTR.key])));
    const ids = new Set<string>();
    for (const item of shards.flat()) {
      const key = parseKey(item[ATTR.key]?.S);
      if (key !== undefined && key.length === 1) ids.add(key[0]!);
    }
    return ids;
  }

  /** The key and kind of every stage head in one shard. */
  private stageKindItems(pk: string): Promise<Record<string, AttributeValue>[]> {
    return this.headItems(pk, [ATTR.key, ATTR.kind]);
  }

  /** The `attributes` of every item in one record shard, read whole. */
  private async headItems(pk: string, attributes: readonly string[]): Promise<Record<string, AttributeValue>[]> {
    return queryAll(this.client, partitionQuery(this.tableName, pk, attributes, { consistentRead: true }));
  }

  /**
   * Plans the whole page first (a record that cannot be stored throws before
   * any write), then sends the transactions in order; the watermark is in the
   * last one. The SDK's own ClientRequestToken makes its internal retries of a
   * transaction idempotent; a deterministic token would add nothing, since a
   * replayed page rewrites the same items anyway. Once the page has committed,
   * a record whose parts were staged loses its other parts (only pages that
   * stage one pay for it).
   */
  async commitPage(write: PageWrite): Promise<void> {
    const listing = await this.storedListing(write);
    // The leads' stages before the page, for their transitions (./page-history.ts): read only when the page writes records.
    const plan = planPage(this.tableName, write, listing, pageWritesRecords(write, listing) ? await readStoredStages(this.parts, write) : undefined);
    const { transactions } = plan;
    // Records an earlier page of this run already counted: the page's progress leaves them out.
    const uncounted: Uncounted & { readonly heads: Set<string> } = { records: 0, stages: 0, heads: new Set() };
    for (const [index, input] of transactions.entries()) await this.sendFenced(write, input, index === transactions.length - 1, uncounted);
    for (const staged of plan.staged) await dropStaleParts(this.parts, staged);
  }

  readLeadStages(connectionId: string, leadIds: readonly string[]): Promise<LeadStages> { return readLeadStages(this.parts, connectionId, leadIds); }

  /**
   * The listing hash on the entity's watermark item, read only for a page 1
   * that has a listing (one read per entity per run). Read strongly: only this
   * run writes it until the commit below (the lock's fence), so it is current.
   */
  private async storedListing(write: PageWrite): Promise<string | null> {
    if (write.listing === undefined || write.run.page !== 1) return null;
    const out = await this.client.send(
      new GetItemCommand({
        TableName: this.tableName,
        Key: { [ATTR.pk]: { S: watermarkPartitionKey(write.connectionId) }, [ATTR.sk]: { S: watermarkSortKey(write.run.entity) } },
        ProjectionExpression: "#listing",
        ExpressionAttributeNames: { "#listing": ATTR.listing },
        ConsistentRead: true,
      }),
    );
    return out.Item?.[ATTR.listing]?.S ?? null;
  }

  /**
   * Sends one transaction of a page. When an earlier attempt of the page
   * committed part of it (a retry after a lost reply, a replay after a crash),
   * or an earlier page of the run wrote one of its records, the conditions
   * that keep counts exact refuse those actions: the page's progress (already
   * counted: dropped) and those heads (sent again in the form the stored head
   * calls for: ./head-writes.ts). A record an earlier page counted is left out
   * of the page's progress. The rest is sent again as fetched now, until it
   * commits; no read is added either way.
   */
  private async sendFenced(write: PageWrite, input: TransactWriteItemsCommandInput, last: boolean, uncounted: Uncounted & { readonly heads: Set<string> }): Promise<void> {
    let actions = input.TransactItems ?? [];
    let hasProgress = last;
    const progress = last ? actions[PROGRESS_ACTION_INDEX]?.Update : undefined;
    // Each round turns at least one refused action into a later form (a head has at most two), so it ends.
    for (let round = 0; round <= 2 * actions.length; round += 1) {
      if (hasProgress && progress !== undefined) actions = actions.map((action, index) => (index === PROGRESS_ACTION_INDEX ? { Update: progressWithout(progress, uncounted) } : action));
      try {
        await this.client.send(new TransactWriteItemsCommand({ ...input, TransactItems: actions }));
        return;
      } catch (error) {
        if (!(error instanceof TransactionCanceledException)) throw error;
        const reasons = error.CancellationReasons ?? [];
        if (reasons[LOCK_ACTION_INDEX]?.Code === "ConditionalCheckFailed") throw await this.fenceError(write);
        const refused = new Set(reasons.flatMap((reason, index) => (reason.Code === "ConditionalCheckFailed" ? [index] : [])));
        if (refused.size === 0) throw error;
        if ([...refused].some((index) => isRefusedHeal(actions[index]!))) {
          throw new StoredVersionNewerError(`an audit page of connection ${write.connectionId} met a stored version newer than the one it compared; the page wrote nothing`);
        }
        const next: TransactWriteItem[] = [];
        for (const [index, action] of actions.entries()) {
          if (!refused.has(index)) next.push(action);
          else if (hasProgress && index === PROGRESS_ACTION_INDEX) hasProgress = false;
          else {
            const retry = retryOfRefusedHead(action, reasons[index]?.Item) ?? rethrow(error);
            if (retry.countedEarlier) countOnce(uncounted, write, action);
            next.push(retry.action);
          }
        }
        actions = next;
      }
    }
    throw new Error(`page ${write.run.page} of ${write.run.entity}: a transaction kept being refused by its own conditions`);
  }

  /** Marks the lock of a run under way (if any): its pages can no longer commit, so a reset cannot be undone by it. */
  private async fenceRunningRun(connectionId: string): Promise<void> {
    try {
      await this.client.send(new UpdateItemCommand(watermarksResetUpdate(this.tableName, connectionId)));
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error; // no run under way
    }
  }

  /** Why the run's fence refused the page: its lock is gone or another run's, or its watermarks were reset. */
  private async fenceError(write: PageWrite): Promise<RunSupersededError | SyncSinceChangedError> {
    const out = await this.client.send(new GetItemCommand(getLockRequest(this.tableName, write.connectionId)));
    if (lockHolder(out.Item) !== write.run.runId) {
      return new RunSupersededError(`run ${write.run.runId} no longer holds the lock of connection ${write.connectionId}; the page wrote nothing`);
    }
    return new SyncSinceChangedError("sync_since was changed while this run was under way; the next run reads every entity from the new date");
  }

  async getRecord(connectionId: string, collection: Collection, key: RecordWrite["key"]): Promise<RecordWithLineage> {
    const sk = recordSortKey({ collection, key });
    const out = await this.client.send(
      new GetItemCommand({
        TableName: this.tableName,
        Key: { [ATTR.pk]: { S: recordPartitionKey(connectionId, collection, sk) }, [ATTR.sk]: { S: sk } },
        ConsistentRead: true,
      }),
    );
    const doc = out.Item === undefined ? null : await readRecordDoc(this.parts, connectionId, collection, out.Item);
    if (out.Item === undefined || doc === null) return { record: null, lineage: null };
    return { record: JSON.parse(doc) as Record<string, unknown>, lineage: readLineage(out.Item) };
  }

  async listRecords(
    connectionId: string,
    collection: Collection,
    options: { limit: number; cursor?: string | null; order?: RecordOrder },
  ): Promise<RecordPage> {
    const { limit } = options;
    if (!Number.isInteger(limit) || limit < 1 || limit > LIST_MAX_LIMIT) {
      throw new RangeError(`limit must be an integer from 1 to ${LIST_MAX_LIMIT}; got ${limit}`);
    }
    const order = options.order ?? "key";
    const start = options.cursor === undefined || options.cursor === null ? undefined : decodeCursor(options.cursor, order);
    // The shards merged into one list (../table/sharded-query.ts), one item more than asked: when it comes back, there is a next page.
    const items = await mergeShardQueries({
      client: this.client,
      tableName: this.tableName,
      partitionKeys: recordShardPartitionKeys(connectionId, collection),
      order,
      count: limit + 1,
      ...(start === undefined ? {} : { after: order === "newest" ? newestSortValue(start.newest ?? "", start.sk) : start.sk }),
    });
    const heads = items.slice(0, limit);
    const last = items.length > limit ? heads.at(-1) : undefined;

    // The newest-first index lists keys only: the heads themselves come from the table.
    const whole = order === "newest" ? await readNewestHeads(this.client, this.tableName, heads) : heads;
    const docs = await Promise.all(whole.map((head) => readRecordDoc(this.parts, connectionId, collection, head)));
    const records: Record<string, unknown>[] = [];
    for (const doc of docs) if (doc !== null) records.push(JSON.parse(doc) as Record<string, unknown>);
    return { records, nextCursor: last === undefined ? null : encodeCursor(last, order) };
  }
}

/** A head's lineage attributes read as RecordLineage; a head written before lineage was kept reads as never written. */
function readLineage(head: Record<string, AttributeValue>): RecordLineage {
  const attrs = unmarshall(head) as Record<string, unknown>;
  return v.parse(StoredLineageSchema, {
    first_seen: attrs[ATTR.firstSeen],
    last_written: attrs[ATTR.lastWritten],
    writes: attrs[ATTR.writes],
    deleted_at: attrs[ATTR.deletedAt],
    healed_by_audit: attrs[ATTR.healedByAudit],
    findings: attrs[ATTR.findings],
  });
}

const lineageFields = RecordLineageSchema.entries;
/** Lineage as stored: an attribute not written yet reads as its start value. */
const StoredLineageSchema = v.object({
  first_seen: v.optional(lineageFields.first_seen, null),
  last_written: v.optional(lineageFields.last_written, null),
  writes: v.optional(lineageFields.writes, 0),
  deleted_at: v.optional(lineageFields.deleted_at, null),
  healed_by_audit: v.optional(lineageFields.healed_by_audit, null),
  findings: v.optional(lineageFields.findings, []),
});

/** Leaves a head an earlier page of the run counted out of this page's records (or a pipelines page's stages), once. */
function countOnce(uncounted: Uncounted & { readonly heads: Set<string> }, write: PageWrite, action: TransactWriteItem): void {
  const key = action.Update?.Key;
  const pk = key?.[ATTR.pk]?.S ?? "";
  const id = `${pk}\u0000${key?.[ATTR.sk]?.S ?? ""}`;
  if (uncounted.heads.has(id)) return;
  uncounted.heads.add(id);
  const collection = recordPartitionCollection(pk);
  if (collection === write.run.entity) uncounted.records += 1;
  else if (collection === "stages" && write.run.entity === "pipelines") uncounted.stages += 1;
}

function rethrow(error: unknown): never {
  throw error;
}

function parseKey(raw: string | undefined): string[] | undefined {
  if (raw === undefined) return undefined;
  const key: unknown = JSON.parse(raw);
  return Array.isArray(key) && key.every((part) => typeof part === "string") ? key : undefined;
}

function isStageKind(kind: string | undefined): kind is StageKind {
  return kind !== undefined && (STAGE_KINDS as readonly string[]).includes(kind);
}

/**
 * Opaque to callers: base64url of the last returned sort key, the same in every
 * shard, so the next page starts after it in each. A newest-first cursor also
 * holds that record's newest value (`n`), so one order's cursor never passes
 * for the other's. The form is the one of the unsharded release: its cursors go on.
 */
function encodeCursor(item: Record<string, AttributeValue>, order: RecordOrder): string {
  const sk = item[ATTR.sk]?.S ?? "";
  const body = order === "newest" ? { sk, n: newestOfSortValue(item[ATTR.newest]?.S ?? "") } : { sk };
  return Buffer.from(JSON.stringify(body), "utf8").toString("base64url");
}

/** A newest value as recordNewestValue writes it: Date#toISOString (years beyond 9999 included). */
const ISO_NEWEST = /^[+-]?\d{4,6}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

function decodeCursor(cursor: string, order: RecordOrder): { sk: string; newest?: string } {
  try {
    if (!/^[A-Za-z0-9_-]+$/.test(cursor)) throw new Error("not base64url");
    const parsed = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as { sk?: unknown; n?: unknown } | null;
    const sk = parsed?.sk;
    if (typeof sk !== "string" || sk.length === 0) throw new Error("no sort key");
    if (utf8Bytes(sk) > SORT_KEY_MAX_BYTES) throw new Error("a sort key longer than DynamoDB allows");
    if (order === "key") {
      if (parsed?.n !== undefined) throw new Error("a newest-first cursor");
      return { sk };
    }
    const newest = parsed?.n;
    if (typeof newest !== "string" || !(newest === UNDATED_NEWEST_VALUE || ISO_NEWEST.test(newest))) throw new Error("not a newest-first cursor");
    return { sk, newest };
  } catch (error) {
    throw new InvalidCursorError("cursor is not one this store issued", { cause: error });
  }
}
