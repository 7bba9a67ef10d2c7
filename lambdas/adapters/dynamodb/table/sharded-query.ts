import { QueryCommand, type AttributeValue, type DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { RECORD_TABLE } from "./table-definition";

type Item = Record<string, AttributeValue>;

/** `key`: ascending sort key (the table); `newest`: descending newest value (the newest index, read backwards). */
export type ShardedOrder = "key" | "newest";

export interface ShardedQuery {
  readonly client: Pick<DynamoDBClient, "send">;
  readonly tableName: string;
  /** The shards' partition keys: each is one sorted stream. */
  readonly partitionKeys: readonly string[];
  readonly order: ShardedOrder;
  /** How many items to return at most. */
  readonly count: number;
  /** Start strictly after this sort value (the sort key, or the newest index's sort value). */
  readonly after?: string;
}

/** One shard's items in order, read from DynamoDB a page at a time as the merge needs them. */
interface ShardStream {
  readonly pk: string;
  buffer: { item: Item; sortValue: Buffer }[];
  startKey: Item | undefined;
  done: boolean;
  limit: number;
}

/**
 * The first `count` items of all shards in one order, as one partition would
 * list them: a k-way merge of one Query per shard (docs/hot-keys.md). Each
 * shard is first asked for its share plus one; a shard that runs dry while it
 * has more is read again with twice the limit. Values compare by their UTF-8
 * bytes, which is how DynamoDB orders each shard.
 */
export async function mergeShardQueries(query: ShardedQuery): Promise<Item[]> {
  const { partitionKeys, count } = query;
  const share = Math.ceil(count / Math.max(partitionKeys.length, 1)) + 1;
  const streams: ShardStream[] = partitionKeys.map((pk) => ({ pk, buffer: [], startKey: undefined, done: false, limit: share }));
  const attribute = query.order === "key" ? RECORD_TABLE.sortKey.name : RECORD_TABLE.newestIndex.sortKey.name;
  // Ascending for the key, descending for newest: `first` says whether a comes before b.
  const first = query.order === "key" ? (a: Buffer, b: Buffer) => Buffer.compare(a, b) < 0 : (a: Buffer, b: Buffer) => Buffer.compare(a, b) > 0;

  const merged: Item[] = [];
  while (merged.length < count) {
    // Every shard that may still hold items must show its next one before the merge can choose.
    const dry = streams.filter((stream) => stream.buffer.length === 0 && !stream.done);
    await Promise.all(dry.map((stream) => readMore(query, stream, attribute, count - merged.length)));
    let next: ShardStream | undefined;
    for (const stream of streams) {
      const head = stream.buffer[0];
      if (head === undefined) continue;
      if (next === undefined || first(head.sortValue, next.buffer[0]!.sortValue)) next = stream;
    }
    if (next === undefined) break; // every shard is exhausted
    merged.push(next.buffer.shift()!.item);
  }
  return merged;
}

async function readMore(query: ShardedQuery, stream: ShardStream, attribute: string, wanted: number): Promise<void> {
  const condition = query.after === undefined ? "" : query.order === "key" ? " AND #sort > :after" : " AND #sort < :after";
  do {
    const out = await query.client.send(
      new QueryCommand({
        TableName: query.tableName,
        KeyConditionExpression: `#pk = :pk${condition}`,
        ExpressionAttributeNames: { "#pk": RECORD_TABLE.partitionKey.name, ...(condition === "" ? {} : { "#sort": attribute }) },
        ExpressionAttributeValues: { ":pk": { S: stream.pk }, ...(query.after === undefined ? {} : { ":after": { S: query.after } }) },
        ExclusiveStartKey: stream.startKey,
        Limit: Math.min(stream.limit, wanted + 1),
        // The index is read backwards (newest first); a global secondary index cannot be read consistently.
        ...(query.order === "newest" ? { IndexName: RECORD_TABLE.newestIndex.name, ScanIndexForward: false } : { ConsistentRead: true }),
      }),
    );
    for (const item of out.Items ?? []) {
      stream.buffer.push({ item, sortValue: Buffer.from(item[attribute]?.S ?? "", "utf8") });
    }
    stream.startKey = out.LastEvaluatedKey;
    stream.done = out.LastEvaluatedKey === undefined;
    stream.limit *= 2;
  } while (stream.buffer.length === 0 && !stream.done);
}
