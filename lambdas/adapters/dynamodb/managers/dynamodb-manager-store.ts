import {
  ConditionalCheckFailedException,
  DeleteItemCommand,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
  type AttributeValue,
} from "@aws-sdk/client-dynamodb";
import { createHash } from "node:crypto";
import * as v from "valibot";
import { InvalidCursorError } from "../../../domain/core/errors";
import {
  ManagerRowSchema,
  MonthActivitySchema,
  type ManagerCollection,
  type ManagerRow,
  type ManagerSnapshot,
  type MonthActivity,
  type RowKey,
} from "../../../domain/analytics/manager-aggregates";
import type { ExplicitLink, ManagerStore, RecordIdsPage, SnapshotMeta } from "../../../domain/analytics/manager-store";
import { DynamoDbTableAdapter } from "../table/dynamodb-table-adapter";
import { queryAll } from "../table/query-all";
import { ATTR, recordShardPartitionKeys, watermarkPartitionKey, watermarkSortKey } from "../records/keys";
import { utf8Bytes } from "../table/key-limits";
import {
  MANAGER_ATTR,
  META_SK,
  MONTH_SK_PREFIX,
  ROW_SK_PREFIX,
  idBucket,
  idsPrefix,
  idsSortKey,
  monthRange,
  monthSortKey,
  rowSortKey,
  snapshotPartitionKey,
} from "./manager-keys";
import { listLinks, membersByEmail, recordMember, setLink } from "./manager-link-items";

type Item = Record<string, AttributeValue>;

/** A row's ids of a collection are cut into buckets of about this many bytes at most: a new record rewrites one. */
export const IDS_BUCKET_BYTES = 64 * 1024;
/** Writes of one snapshot sent at once. */
const WRITE_CONCURRENCY = 16;
/** The entities whose watermark items say whether a page wrote records (users and stages are read whole instead). */
const VERSIONED_ENTITIES = ["leads", "tasks", "calls", "events"] as const;

interface DesiredItem {
  readonly sk: string;
  readonly data: string;
  readonly user?: string;
}

const userOf = (key: RowKey): string | undefined => (key.kind === "user" ? key.id : undefined);
const keyOf = (item: Item): RowKey => {
  const user = item[MANAGER_ATTR.user]?.S;
  return user === undefined ? { kind: "unassigned" } : { kind: "user", id: user };
};

/**
 * ManagerStore on the single table (key layout: ./manager-keys.ts). A snapshot
 * is saved item by item, each Put conditioned on the stored item being older,
 * so two refreshes of one connection that overlap leave the newer one's items.
 */
export class DynamoDbManagerStore extends DynamoDbTableAdapter implements ManagerStore {
  async getMeta(connectionId: string): Promise<SnapshotMeta | null> {
    const out = await this.client.send(
      new GetItemCommand({ TableName: this.tableName, Key: this.key(snapshotPartitionKey(connectionId), META_SK), ConsistentRead: true }),
    );
    const computedAt = out.Item?.[MANAGER_ATTR.computedAt]?.S;
    const signature = out.Item?.[MANAGER_ATTR.signature]?.S;
    return computedAt === undefined || signature === undefined ? null : { computedAt, signature };
  }

  /**
   * A fingerprint of what the stored records are: each incremental entity's
   * watermark and listing hash (a page that writes records moves one or the
   * other; a page whose whole listing is unchanged writes none and moves
   * neither), and the stored users and stages themselves (full lists of tens
   * of rows, read whole: a listing of several pages keeps no hash).
   */
  async recordsVersion(connectionId: string): Promise<string> {
    const [watermarks, users, stages] = await Promise.all([
      this.queryAll({ pk: watermarkPartitionKey(connectionId) }),
      this.queryAll({ pk: recordShardPartitionKeys(connectionId, "users")[0]! }),
      this.queryAll({ pk: recordShardPartitionKeys(connectionId, "stages")[0]! }),
    ]);
    const bySk = new Map(watermarks.map((item) => [item[ATTR.sk]?.S, item]));
    const fingerprint = createHash("sha256");
    for (const entity of VERSIONED_ENTITIES) {
      const item = bySk.get(watermarkSortKey(entity));
      fingerprint.update(JSON.stringify([entity, item?.[ATTR.value]?.S ?? null, item?.[ATTR.listing]?.S ?? null]));
    }
    for (const item of [...users, ...stages]) fingerprint.update(JSON.stringify([item[ATTR.sk]?.S, item[ATTR.doc]?.S, item[ATTR.parts]?.N ?? "0"]));
    return fingerprint.digest("base64url");
  }

  async saveSnapshot(connectionId: string, snapshot: ManagerSnapshot): Promise<{ written: number; deleted: number }> {
    const pk = snapshotPartitionKey(connectionId);
    const desired = desiredItems(snapshot);
    const stored = new Map((await this.queryAll({ pk })).map((item) => [item[MANAGER_ATTR.sk]?.S ?? "", item]));
    // A refresh that computed before the stored snapshot writes nothing (the conditions below cover one that overlaps it).
    const storedAt = stored.get(META_SK)?.[MANAGER_ATTR.computedAt]?.S;
    if (storedAt !== undefined && storedAt > snapshot.computedAt) return { written: 0, deleted: 0 };
    const puts = desired.filter((item) => stored.get(item.sk)?.[MANAGER_ATTR.data]?.S !== item.data);
    const wanted = new Set(desired.map((item) => item.sk));
    const deletes = [...stored.keys()].filter((sk) => sk !== META_SK && !wanted.has(sk));
    const computedAt: AttributeValue = { S: snapshot.computedAt };
    // Over an older item only: a refresh that computed earlier and saves later changes nothing.
    const newer = { ConditionExpression: "attribute_not_exists(#pk) OR #at <= :at", ExpressionAttributeNames: { "#pk": MANAGER_ATTR.pk, "#at": MANAGER_ATTR.computedAt }, ExpressionAttributeValues: { ":at": computedAt } };
    const put = (item: Item) => this.conditional(new PutItemCommand({ TableName: this.tableName, Item: item, ...newer }));
    await inBatches(
      [
        ...puts.map((item) => () =>
          put({ ...this.key(pk, item.sk), [MANAGER_ATTR.data]: { S: item.data }, [MANAGER_ATTR.computedAt]: computedAt, ...(item.user === undefined ? {} : { [MANAGER_ATTR.user]: { S: item.user } }) })),
        ...deletes.map((sk) => () => this.conditional(new DeleteItemCommand({ TableName: this.tableName, Key: this.key(pk, sk), ...newer }))),
      ],
      WRITE_CONCURRENCY,
    );
    // The header last: a reader that sees it sees every item of its snapshot.
    await put({ ...this.key(pk, META_SK), [MANAGER_ATTR.computedAt]: computedAt, [MANAGER_ATTR.signature]: { S: snapshot.signature } });
    return { written: puts.length + 1, deleted: deletes.length };
  }

  async getRows(connectionId: string): Promise<{ key: RowKey; row: ManagerRow }[]> {
    const items = await this.queryAll({ pk: snapshotPartitionKey(connectionId), prefix: ROW_SK_PREFIX });
    return items.map((item) => ({ key: keyOf(item), row: v.parse(ManagerRowSchema, JSON.parse(item[MANAGER_ATTR.data]?.S ?? "null")) }));
  }

  async getMonths(connectionId: string, fromMonth: string, toMonth: string): Promise<{ key: RowKey; month: string; days: MonthActivity }[]> {
    const [low, high] = monthRange(fromMonth, toMonth);
    const items = await this.queryAll({ pk: snapshotPartitionKey(connectionId), between: [low, high] });
    return items.map((item) => ({
      key: keyOf(item),
      month: (item[MANAGER_ATTR.sk]?.S ?? "").slice(MONTH_SK_PREFIX.length, MONTH_SK_PREFIX.length + 7),
      days: v.parse(MonthActivitySchema, JSON.parse(item[MANAGER_ATTR.data]?.S ?? "null")),
    }));
  }

  /**
   * A page of a row's ids: bucket by bucket (sort key order), each bucket's
   * ids in order. The cursor names the bucket's sort key and the last id given.
   */
  async listIds(connectionId: string, key: RowKey, collection: ManagerCollection, options: { limit: number; cursor: string | null }): Promise<RecordIdsPage> {
    const pk = snapshotPartitionKey(connectionId);
    const prefix = idsPrefix(collection, key);
    const start = options.cursor === null ? null : decodeIdsCursor(options.cursor, prefix);
    const ids: string[] = [];
    let after = start?.sk ?? null;
    let skip = start?.after ?? null;
    // The cursor's own bucket first (its ids after the cursor's), then the buckets after it.
    let inclusive = start !== null;
    for (;;) {
      const bucket = await this.nextBucket(pk, prefix, after, inclusive);
      inclusive = false;
      if (bucket === null) return { ids, nextCursor: null };
      const bucketIds = JSON.parse(bucket[MANAGER_ATTR.data]?.S ?? "[]") as string[];
      const rest = skip === null ? bucketIds : bucketIds.filter((id) => id > skip!);
      const sk = bucket[MANAGER_ATTR.sk]!.S!;
      for (const id of rest) {
        if (ids.length === options.limit) return { ids, nextCursor: encodeIdsCursor(sk, ids[ids.length - 1]!) };
        ids.push(id);
      }
      after = sk;
      skip = null;
    }
  }

  /** The bucket at `sk` (when `inclusive`) or the first one after it; null when none is left. */
  private async nextBucket(pk: string, prefix: string, sk: string | null, inclusive: boolean): Promise<Item | null> {
    const out = await this.client.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: sk === null ? "#pk = :pk AND begins_with(#sk, :prefix)" : `#pk = :pk AND #sk BETWEEN :from AND :last`,
        ExpressionAttributeNames: { "#pk": MANAGER_ATTR.pk, "#sk": MANAGER_ATTR.sk },
        ExpressionAttributeValues: {
          ":pk": { S: pk },
          ...(sk === null ? { ":prefix": { S: prefix } } : { ":from": { S: inclusive ? sk : `${sk}\u0000` }, ":last": { S: `${prefix}\uffff` } }),
        },
        Limit: 1,
      }),
    );
    return out.Items?.[0] ?? null;
  }

  listLinks(connectionId: string): Promise<readonly ExplicitLink[]> {
    return listLinks(this.client, this.tableName, connectionId);
  }

  setLink(connectionId: string, sourceUserId: string, memberId: string | null | "automatic", at: string): Promise<void> {
    return setLink(this.client, this.tableName, { connectionId, sourceUserId, target: memberId, at });
  }

  recordMember(account: string, memberId: string, email: string): Promise<void> {
    return recordMember(this.client, this.tableName, { account, memberId, email });
  }

  membersByEmail(account: string): Promise<ReadonlyMap<string, string>> {
    return membersByEmail(this.client, this.tableName, account);
  }

  private key(pk: string, sk: string): Item {
    return { [MANAGER_ATTR.pk]: { S: pk }, [MANAGER_ATTR.sk]: { S: sk } };
  }

  /** A write that a newer stored item refuses: refused is fine (the newer refresh's item stays). */
  private async conditional(command: PutItemCommand | DeleteItemCommand): Promise<void> {
    try {
      await (command instanceof PutItemCommand ? this.client.send(command) : this.client.send(command));
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
  }

  /** Every item of the partition, or of its sort keys with `prefix` or `between` two (both included). */
  private async queryAll(query: { pk: string; prefix?: string; between?: readonly [string, string] }): Promise<Item[]> {
    const condition = query.prefix !== undefined ? " AND begins_with(#sk, :prefix)" : query.between !== undefined ? " AND #sk BETWEEN :low AND :high" : "";
    return queryAll(this.client, {
      TableName: this.tableName,
      KeyConditionExpression: `#pk = :pk${condition}`,
      ExpressionAttributeNames: { "#pk": MANAGER_ATTR.pk, ...(condition === "" ? {} : { "#sk": MANAGER_ATTR.sk }) },
      ExpressionAttributeValues: {
        ":pk": { S: query.pk },
        ...(query.prefix === undefined ? {} : { ":prefix": { S: query.prefix } }),
        ...(query.between === undefined ? {} : { ":low": { S: query.between[0] }, ":high": { S: query.between[1] } }),
      },
      ConsistentRead: true,
    });
  }
}

/** Every item a snapshot is stored as (the header apart). */
function desiredItems(snapshot: ManagerSnapshot): DesiredItem[] {
  const withUser = (key: RowKey) => (userOf(key) === undefined ? {} : { user: userOf(key)! });
  return [
    ...snapshot.rows.map(({ key, row }) => ({ sk: rowSortKey(key), data: JSON.stringify(row), ...withUser(key) })),
    ...snapshot.months.map(({ key, month, days }) => ({ sk: monthSortKey(month, key), data: JSON.stringify(days), ...withUser(key) })),
    ...snapshot.ids.flatMap(({ key, collection, ids }) => idBuckets(ids).map((bucket, index, all) => ({ sk: idsSortKey(collection, key, all.length, index), data: JSON.stringify(bucket), ...withUser(key) }))),
  ].filter((item) => item.data !== "[]");
}

/** A sorted id list cut by hash into the fewest buckets (a power of two) each holding about IDS_BUCKET_BYTES at most. */
export function idBuckets(ids: readonly string[]): string[][] {
  const bytes = ids.reduce((sum, id) => sum + utf8Bytes(id) + 3, 2);
  let buckets = 1;
  while (buckets * IDS_BUCKET_BYTES < bytes * 1.25) buckets *= 2;
  const cut: string[][] = Array.from({ length: buckets }, () => []);
  for (const id of ids) cut[idBucket(id, buckets)]!.push(id);
  return cut;
}

async function inBatches(work: readonly (() => Promise<void>)[], size: number): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(size, work.length) }, async () => {
    while (next < work.length) await work[next++]!();
  }));
}

function encodeIdsCursor(sk: string, after: string): string {
  return Buffer.from(JSON.stringify({ s: sk, a: after }), "utf8").toString("base64url");
}

function decodeIdsCursor(cursor: string, prefix: string): { sk: string; after: string } {
  try {
    if (!/^[A-Za-z0-9_-]+$/.test(cursor)) throw new Error("not base64url");
    const parsed = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as { s?: unknown; a?: unknown } | null;
    if (typeof parsed?.s !== "string" || !parsed.s.startsWith(prefix) || typeof parsed.a !== "string") throw new Error("not this list's cursor");
    return { sk: parsed.s, after: parsed.a };
  } catch {
    throw new InvalidCursorError();
  }
}
