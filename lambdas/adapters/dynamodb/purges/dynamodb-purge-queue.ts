import { BatchWriteItemCommand, ConditionalCheckFailedException, DeleteItemCommand, QueryCommand, UpdateItemCommand, type AttributeValue } from "@aws-sdk/client-dynamodb";
import { DynamoDbTableAdapter } from "../table/dynamodb-table-adapter";
import { queryAll } from "../table/query-all";
import { returnedPartitionKey } from "../audits/audit-keys";
import { COLLECTIONS } from "../../../domain/core/entities";
import { AUDIT_ID_PREFIX } from "../../../domain/core/run-mode";
import { preflightPartitionKey } from "../preflight-runs/preflight-keys";
import { figuresPartitionKey } from "../figures/figures-keys";
import { rateLimitPartitionKey } from "../rate-limit/rate-limit-keys";
import type { PendingPurge, PurgeQueue, PurgeStep } from "../../../domain/retention/purge-queue";
import { runLockPartitionKey, runPartitionKey } from "../runs/run-item/run-keys";
import { ATTR, changePartitionKey, historyShardPartitionKeys, legacyRecordPartitionKey, partPartitionKey, recordShardPartitionKeys, watermarkPartitionKey } from "../records/keys";
import { PURGE_ATTR, PURGE_PARTITION_KEY, duePurgeSortKeyBound, purgeSortKey } from "./purge-keys";
import { linkPartitionKey, snapshotPartitionKey } from "../managers/manager-keys";

type Item = Record<string, AttributeValue>;
type Partition = { readonly pk: string; readonly collection?: (typeof COLLECTIONS)[number] };

/** BatchWriteItem's limit on requests per call. */
const BATCH_WRITE_MAX = 25;
/** Items read per Query while deleting: four BatchWriteItem calls. */
const QUERY_PAGE = 100;
/** Unprocessed deletes are re-sent this often; what is left then waits for the next invocation. */
const UNPROCESSED_RESENDS = 3;

/** The purge queue and the deletes behind it, on the single table (key layout: ./purge-keys.ts and each store's keys). */
export class DynamoDbPurgeQueue extends DynamoDbTableAdapter implements PurgeQueue {
  async due(now: Date, limit: number): Promise<PendingPurge[]> {
    const out = await this.client.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: "#pk = :pk AND #sk <= :due",
        ExpressionAttributeNames: { "#pk": PURGE_ATTR.pk, "#sk": PURGE_ATTR.sk },
        ExpressionAttributeValues: { ":pk": { S: PURGE_PARTITION_KEY }, ":due": { S: duePurgeSortKeyBound(now) } },
        Limit: limit,
        ConsistentRead: true,
      }),
    );
    return (out.Items ?? []).map((item) => {
      const resumeFrom = item[PURGE_ATTR.resumeFrom]?.S;
      return {
        connectionId: item[PURGE_ATTR.connectionId]?.S ?? "",
        businessAccountId: item[PURGE_ATTR.businessAccountId]?.S ?? "",
        deletedAt: item[PURGE_ATTR.deletedAt]?.S ?? "",
        notBefore: (item[PURGE_ATTR.sk]?.S ?? "").slice(0, "0000-00-00T00:00:00.000Z".length),
        ...(resumeFrom === undefined ? {} : { resumeFrom }),
      };
    });
  }

  async purgeSome(purge: PendingPurge, maxItems: number): Promise<PurgeStep> {
    const partitions = await this.partitionsOf(purge.connectionId);
    // Where the last invocation stopped; an unknown key (a list that changed) starts from the beginning.
    const from = Math.max(0, partitions.findIndex((partition) => partition.pk === purge.resumeFrom));
    // A walk resumed past the start ends with one from the start (one Query per partition, all emptied before), so
    // that "done" means what it means for a purge done in one invocation: one walk from the start found nothing left.
    const walks = from === 0 ? [partitions] : [partitions.slice(from), partitions];
    let deleted = 0;
    for (const walk of walks) {
      const step = await this.purgeWalk(walk, purge.connectionId, maxItems - deleted);
      deleted += step.deleted;
      if (!step.done) return { ...step, deleted };
    }
    return { deleted, done: true };
  }

  /** Deletes up to `maxItems` items of the partitions in turn; not done: the partition it stopped in. */
  private async purgeWalk(partitions: readonly Partition[], connectionId: string, maxItems: number): Promise<PurgeStep> {
    let deleted = 0;
    for (const partition of partitions) {
      const stoppedHere = () => ({ deleted, done: false, resumeFrom: partition.pk });
      for (;;) {
        if (deleted >= maxItems) return stoppedHere();
        const items = await this.queryKeys(partition.pk, Math.min(QUERY_PAGE, maxItems - deleted));
        if (items.length === 0) break;
        const heads: Item[] = [];
        // Set when the budget ends inside this batch: the heads gathered so far are deleted, the rest waits.
        let stopped = false;
        for (const head of items) {
          if (deleted + heads.length >= maxItems) {
            stopped = true;
            break;
          }
          if (partition.collection !== undefined && Number(head[ATTR.parts]?.N ?? "0") > 0) {
            // A record's parts first: a purge cut short never leaves parts whose head is gone (the head names them).
            const parts = partPartitionKey(connectionId, partition.collection, head[ATTR.sk]?.S ?? "");
            for (;;) {
              // Parts count against the budget too, with room kept for the heads to delete after them.
              const room = maxItems - deleted - heads.length - 1;
              const take = room > 0 ? room : deleted === 0 && heads.length === 0 ? maxItems : 0;
              if (take <= 0) {
                stopped = true;
                break;
              }
              const part = await this.queryKeys(parts, Math.min(QUERY_PAGE, take));
              if (part.length === 0) break;
              const gone = await this.deleteKeys(part);
              deleted += gone;
              if (gone < part.length) return stoppedHere();
            }
            if (stopped) break;
          }
          heads.push(head);
        }
        const gone = await this.deleteKeys(heads);
        deleted += gone;
        if (gone < heads.length || stopped) return stoppedHere();
      }
    }
    return { deleted, done: true };
  }

  async remember(purge: PendingPurge, resumeFrom: string): Promise<void> {
    try {
      await this.client.send(
        new UpdateItemCommand({
          TableName: this.tableName,
          Key: this.queueKey(purge),
          UpdateExpression: "SET #resume = :resume",
          // Never a new item: a purge no longer pending has nothing to remember.
          ConditionExpression: "attribute_exists(#pk)",
          ExpressionAttributeNames: { "#resume": PURGE_ATTR.resumeFrom, "#pk": PURGE_ATTR.pk },
          ExpressionAttributeValues: { ":resume": { S: resumeFrom } },
        }),
      );
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
  }

  async complete(purge: PendingPurge): Promise<void> {
    await this.client.send(new DeleteItemCommand({ TableName: this.tableName, Key: this.queueKey(purge) }));
  }

  private queueKey(purge: PendingPurge): Item {
    return { [PURGE_ATTR.pk]: { S: PURGE_PARTITION_KEY }, [PURGE_ATTR.sk]: { S: purgeSortKey(new Date(purge.notBefore), purge.connectionId) } };
  }

  /**
   * Every partition that holds the connection's data: its records (with their parts) in every shard and in the
   * unsharded layout of earlier releases, its leads' transitions (one per shard) and its change items, then the small ones. An empty partition costs one Query per walk.
   * Each audit's returned ids (AUDITSEEN#<connection>#<audit>) go before the run partition, which names the audits.
   */
  private async partitionsOf(connectionId: string): Promise<Partition[]> {
    const records = COLLECTIONS.flatMap((collection): Partition[] => [
      ...recordShardPartitionKeys(connectionId, collection).map((pk) => ({ pk, collection })),
      { pk: legacyRecordPartitionKey(connectionId, collection), collection },
    ]);
    return [
      ...records,
      watermarkPartitionKey(connectionId),
      // Stage history and the change feed (docs/history-feed-webhooks.md): the change items' TTL would take a month.
      ...historyShardPartitionKeys(connectionId),
      changePartitionKey(connectionId),
      ...(await this.auditIds(connectionId)).map((auditId) => returnedPartitionKey(connectionId, auditId)),
      runPartitionKey(connectionId),
      runLockPartitionKey(connectionId),
      rateLimitPartitionKey(connectionId),
      preflightPartitionKey(connectionId),
      figuresPartitionKey(connectionId),
      // The per-manager aggregates and the owner's links (the workspace's members outlive a connection).
      snapshotPartitionKey(connectionId),
      linkPartitionKey(connectionId),
    ].map((partition) => (typeof partition === "string" ? { pk: partition } : partition));
  }

  /** The ids of the connection's audits still in its run partition (keys only; an audit's summary outlives its returned ids). */
  private async auditIds(connectionId: string): Promise<string[]> {
    const items = await queryAll(this.client, {
      TableName: this.tableName,
      KeyConditionExpression: "#pk = :pk AND begins_with(#sk, :audit)",
      ProjectionExpression: "#sk",
      ExpressionAttributeNames: { "#pk": ATTR.pk, "#sk": ATTR.sk },
      ExpressionAttributeValues: { ":pk": { S: runPartitionKey(connectionId) }, ":audit": { S: AUDIT_ID_PREFIX } },
      ConsistentRead: true,
    });
    return items.map((item) => item[ATTR.sk]?.S ?? "").filter((id) => id !== "");
  }

  /** The keys (and a head's part count) of up to `limit` items from the start of a partition: what is deleted is gone, so the start is where to go on. */
  private async queryKeys(pk: string, limit: number): Promise<Item[]> {
    const out = await this.client.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: "#pk = :pk",
        ProjectionExpression: "#pk, #sk, #parts",
        ExpressionAttributeNames: { "#pk": ATTR.pk, "#sk": ATTR.sk, "#parts": ATTR.parts },
        ExpressionAttributeValues: { ":pk": { S: pk } },
        Limit: limit,
        ConsistentRead: true,
      }),
    );
    return out.Items ?? [];
  }

  /** Deletes the items by key, 25 per call; returns how many are gone (unprocessed ones left after the resends are not). */
  private async deleteKeys(items: readonly Item[]): Promise<number> {
    let left = 0;
    for (let start = 0; start < items.length; start += BATCH_WRITE_MAX) {
      let requests = items.slice(start, start + BATCH_WRITE_MAX).map((item) => ({
        DeleteRequest: { Key: { [ATTR.pk]: item[ATTR.pk]!, [ATTR.sk]: item[ATTR.sk]! } },
      }));
      for (let send = 0; send <= UNPROCESSED_RESENDS && requests.length > 0; send++) {
        const out = await this.client.send(new BatchWriteItemCommand({ RequestItems: { [this.tableName]: requests } }));
        requests = (out.UnprocessedItems?.[this.tableName] ?? []) as typeof requests;
      }
      left += requests.length;
    }
    return items.length - left;
  }
}
