import {
  BatchGetItemCommand,
  GetItemCommand,
  PutItemCommand,
  UpdateItemCommand,
  ConditionalCheckFailedException,
  type AttributeValue,
} from "@aws-sdk/client-dynamodb";
import { queryAll, queryPages } from "../table/query-all";
import { DynamoDbTableAdapter } from "../table/dynamodb-table-adapter";
import type { Collection } from "../../../domain/core/entities";
import { StoreUnavailableError } from "../../../domain/core/errors";
import type { AuditStore, PageAhead, RecordTrace, SeenAhead, StoredVersion } from "../../../domain/core/ports/audit-store";
import type { AuditEntity } from "../../../domain/core/run-mode";
import { ATTR, partPartitionKey, partSortKey, recordPartitionKey, recordShardPartitionKeys, recordSortKey } from "../records/keys";
import { AUDIT_ATTR, AUDIT_RETURNED_RETENTION_DAYS, returnedEntityPrefix, returnedPartitionKey, returnedSortKey } from "./audit-keys";

type Item = Record<string, AttributeValue>;

/** The head attribute where a record's lineage keeps the rule ids its last write hit. */
const LINEAGE_FINDINGS = "findings";

/** Keys in one BatchGetItem (DynamoDB's limit): a page holds at most 100 records. */
const BATCH_GET_MAX_KEYS = 100;
const BATCH_GET_ATTEMPTS = 5;
const HEAL_CAUSES = new Set(["missed", "stale", "changed_without_advancing"]);
/** Pages of an audit read per Query when looking for a record past the watermark: usually the last one or two hold them all. */
const SEEN_AHEAD_PAGES_PER_QUERY = 10;

/** AuditStore on the single table: reads record heads (../records/keys.ts) and keeps the ids each page returned (./audit-keys.ts). */
export class DynamoDbAuditStore extends DynamoDbTableAdapter implements AuditStore {
  async storedVersions(connectionId: string, collection: Collection, ids: readonly string[]): Promise<ReadonlyMap<string, StoredVersion>> {
    const versions = new Map<string, StoredVersion>();
    const distinct = [...new Set(ids)];
    for (let at = 0; at < distinct.length; at += BATCH_GET_MAX_KEYS) {
      for (const head of await this.batchGetHeads(connectionId, collection, distinct.slice(at, at + BATCH_GET_MAX_KEYS))) {
        const id = head[ATTR.sk]?.S;
        if (id === undefined) continue;
        versions.set(id, { doc: await this.fullDoc(connectionId, collection, head), healedBy: healedBy(head) });
      }
    }
    return versions;
  }

  async rememberReturned(connectionId: string, auditId: string, entity: AuditEntity, page: number, ids: readonly string[], at: string, ahead?: PageAhead): Promise<void> {
    const expiresAt = Math.floor(Date.parse(at) / 1000) + AUDIT_RETURNED_RETENTION_DAYS * 86_400;
    const seen: Item =
      ahead === undefined
        ? {}
        : {
            [AUDIT_ATTR.settled]: { BOOL: ahead.settled },
            [AUDIT_ATTR.watermark]: ahead.watermark === null ? { NULL: true } : { S: ahead.watermark },
            ...(ahead.ahead.length === 0 ? {} : { [AUDIT_ATTR.ahead]: { S: JSON.stringify(ahead.ahead.map((record) => [record.id, record.updatedAt])) } }),
          };
    await this.client.send(
      new PutItemCommand({
        TableName: this.tableName,
        Item: {
          [AUDIT_ATTR.pk]: { S: returnedPartitionKey(connectionId, auditId) },
          [AUDIT_ATTR.sk]: { S: returnedSortKey(entity, page) },
          [AUDIT_ATTR.ids]: { S: JSON.stringify(ids) },
          ...seen,
          [AUDIT_ATTR.expiresAt]: { N: String(expiresAt) },
        },
      }),
    );
  }

  async seenAhead(connectionId: string, auditId: string, entity: AuditEntity, id: string): Promise<SeenAhead | null> {
    // Newest page first: records ascend, so those past the watermark sit on the entity's last pages.
    const pages = queryPages(this.client, {
      TableName: this.tableName,
      KeyConditionExpression: "#pk = :pk AND begins_with(#sk, :entity)",
      ProjectionExpression: "#ahead, #settled, #watermark",
      ExpressionAttributeNames: { "#pk": AUDIT_ATTR.pk, "#sk": AUDIT_ATTR.sk, "#ahead": AUDIT_ATTR.ahead, "#settled": AUDIT_ATTR.settled, "#watermark": AUDIT_ATTR.watermark },
      ExpressionAttributeValues: { ":pk": { S: returnedPartitionKey(connectionId, auditId) }, ":entity": { S: returnedEntityPrefix(entity) } },
      ScanIndexForward: false,
      Limit: SEEN_AHEAD_PAGES_PER_QUERY,
      ConsistentRead: true,
    });
    for await (const items of pages) {
      for (const item of items) {
        const ahead = JSON.parse(item[AUDIT_ATTR.ahead]?.S ?? "[]") as [string, string][];
        const found = ahead.find(([aheadId]) => aheadId === id);
        if (found !== undefined) return { auditId, updatedAt: found[1], watermark: item[AUDIT_ATTR.watermark]?.S ?? null };
        // A page at or below the watermark, or one kept before audits remembered what was ahead: none before it is ahead.
        if (item[AUDIT_ATTR.settled]?.BOOL !== false) return null;
      }
    }
    return null;
  }

  async closeEntity(connectionId: string, auditId: string, entity: AuditEntity, at: string): Promise<{ readonly storedRecords: number; readonly absentIds: readonly string[] }> {
    const returned = await this.returnedIds(connectionId, auditId, entity);
    const stored = await this.storedIds(connectionId, entity);
    const absentIds = stored.filter((id) => !returned.has(id)).sort();
    for (const id of absentIds) await this.markAbsent(connectionId, entity, id, auditId, at);
    return { storedRecords: stored.length, absentIds };
  }

  async recordTrace(connectionId: string, collection: Collection, key: readonly [string] | readonly [string, string]): Promise<RecordTrace> {
    const sk = recordSortKey({ collection, key });
    const out = await this.client.send(
      new GetItemCommand({ TableName: this.tableName, Key: { [ATTR.pk]: { S: recordPartitionKey(connectionId, collection, sk) }, [ATTR.sk]: { S: sk } }, ConsistentRead: true }),
    );
    const head = out.Item;
    if (head === undefined) return { doc: null, healed: null, absent: null, findings: [], sourceUpdatedAt: null };
    const doc = JSON.parse(await this.fullDoc(connectionId, collection, head)) as Record<string, unknown>;
    const mark = head[ATTR.healed]?.M;
    const by = healedBy(head);
    const absent = head[ATTR.absent]?.M;
    return {
      doc,
      healed: by === null ? null : { ...by, updatedAt: mark?.["updated_at"]?.S ?? null, watermark: mark?.["watermark"]?.S ?? null, at: mark?.["at"]?.S ?? "" },
      absent: absent?.["audit_id"]?.S === undefined ? null : { auditId: absent["audit_id"].S, at: absent["at"]?.S ?? "" },
      // The lineage's list of rule ids, when the record's lineage keeps one (core/record-lineage.ts).
      findings: (head[LINEAGE_FINDINGS]?.L ?? []).flatMap((item) => (item.S === undefined ? [] : [item.S])),
      sourceUpdatedAt: head[ATTR.lastWritten]?.M?.["source_updated_at"]?.S ?? null,
    };
  }

  private async batchGetHeads(connectionId: string, collection: Collection, ids: readonly string[]): Promise<Item[]> {
    let keys: Item[] = ids.map((id) => {
      const sk = recordSortKey({ collection, key: [id] });
      return { [ATTR.pk]: { S: recordPartitionKey(connectionId, collection, sk) }, [ATTR.sk]: { S: sk } };
    });
    const heads: Item[] = [];
    for (let attempt = 1; keys.length > 0; attempt += 1) {
      if (attempt > BATCH_GET_ATTEMPTS) throw new StoreUnavailableError("the store left record reads unprocessed; the page is retried");
      const out = await this.client.send(
        new BatchGetItemCommand({
          RequestItems: {
            [this.tableName]: {
              Keys: keys,
              ConsistentRead: true,
              ProjectionExpression: "#sk, #doc, #parts, #partsVersion, #healed",
              ExpressionAttributeNames: { "#sk": ATTR.sk, "#doc": ATTR.doc, "#parts": ATTR.parts, "#partsVersion": ATTR.partsVersion, "#healed": ATTR.healed },
            },
          },
        }),
      );
      heads.push(...(out.Responses?.[this.tableName] ?? []));
      keys = (out.UnprocessedKeys?.[this.tableName]?.Keys ?? []) as Item[];
    }
    return heads;
  }

  /** The head's document, with its parts when it was split, staged ones too (the audit holds the connection's lock: no write races it). */
  private async fullDoc(connectionId: string, collection: Collection, head: Item): Promise<string> {
    let doc = head[ATTR.doc]?.S ?? "";
    const parts = Number(head[ATTR.parts]?.N ?? "0");
    const sk = head[ATTR.sk]?.S ?? "";
    const version = head[ATTR.partsVersion]?.S;
    for (let part = 1; part <= parts; part += 1) {
      const out = await this.client.send(
        new GetItemCommand({
          TableName: this.tableName,
          Key: { [ATTR.pk]: { S: partPartitionKey(connectionId, collection, sk) }, [ATTR.sk]: { S: partSortKey(part, version) } },
          ConsistentRead: true,
        }),
      );
      doc += out.Item?.[ATTR.doc]?.S ?? "";
    }
    return doc;
  }

  private async returnedIds(connectionId: string, auditId: string, entity: AuditEntity): Promise<Set<string>> {
    const items = await queryAll(this.client, {
      TableName: this.tableName,
      KeyConditionExpression: "#pk = :pk AND begins_with(#sk, :entity)",
      ExpressionAttributeNames: { "#pk": AUDIT_ATTR.pk, "#sk": AUDIT_ATTR.sk },
      ExpressionAttributeValues: { ":pk": { S: returnedPartitionKey(connectionId, auditId) }, ":entity": { S: returnedEntityPrefix(entity) } },
      ConsistentRead: true,
    });
    return new Set(items.flatMap((item) => JSON.parse(item[AUDIT_ATTR.ids]?.S ?? "[]") as string[]));
  }

  /**
   * Every stored id of the entity's collection: its shards' sort keys (an id is its head's sort key). The shards are
   * read at once, as the sharded listing reads them (table/sharded-query.ts): 64 in sequence were most of an audit's close.
   */
  private async storedIds(connectionId: string, collection: Collection): Promise<string[]> {
    const shards = await Promise.all(recordShardPartitionKeys(connectionId, collection).map((pk) => this.shardIds(pk)));
    return shards.flat();
  }

  /** One shard's record ids, a Query page at a time. */
  private async shardIds(pk: string): Promise<string[]> {
    const items = await queryAll(this.client, {
      TableName: this.tableName,
      KeyConditionExpression: "#pk = :pk",
      ProjectionExpression: "#sk",
      ExpressionAttributeNames: { "#pk": ATTR.pk, "#sk": ATTR.sk },
      ExpressionAttributeValues: { ":pk": { S: pk } },
    });
    return items.flatMap((item) => (item[ATTR.sk]?.S === undefined ? [] : [item[ATTR.sk]!.S!]));
  }

  private async markAbsent(connectionId: string, collection: Collection, id: string, auditId: string, at: string): Promise<void> {
    const sk = recordSortKey({ collection, key: [id] });
    try {
      await this.client.send(
        new UpdateItemCommand({
          TableName: this.tableName,
          Key: { [ATTR.pk]: { S: recordPartitionKey(connectionId, collection, sk) }, [ATTR.sk]: { S: sk } },
          UpdateExpression: "SET #absent = :absent",
          ConditionExpression: "attribute_exists(#pk)",
          ExpressionAttributeNames: { "#pk": ATTR.pk, "#absent": ATTR.absent },
          ExpressionAttributeValues: { ":absent": { M: { audit_id: { S: auditId }, at: { S: at } } } },
        }),
      );
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error; // gone since the listing: nothing to mark
    }
  }
}

function healedBy(head: Item): StoredVersion["healedBy"] {
  const mark = head[ATTR.healed]?.M;
  const auditId = mark?.["audit_id"]?.S;
  const cause = mark?.["cause"]?.S;
  if (auditId === undefined || cause === undefined || !HEAL_CAUSES.has(cause)) return null;
  return { auditId, cause: cause as NonNullable<StoredVersion["healedBy"]>["cause"] };
}
