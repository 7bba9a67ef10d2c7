import type { AttributeValue, DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { queryPages } from "./query-all";
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
  /** The shard's Query pages; each page is sent only when the merge asks for it. */
  readonly pages: AsyncGenerator<Item[]>;
  /** What the next page asks for: the least of `limit` (the shard's share, doubled after every page) and what the merge still wants, plus one. */
  readonly sizing: { limit: number; wanted: number };
  buffer: { item: Item; sortValue: Buffer }[];
  done: boolean;
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
  const attribute = query.order === "key" ? RECORD_TABLE.sortKey.name : RECORD_TABLE.newestIndex.sortKey.name;
  const streams = partitionKeys.map((pk) => shardStream(query, pk, attribute, share));
  // Ascending for the key, descending for newest: `first` says whether a comes before b.
  const first = query.order === "key" ? (a: Buffer, b: Buffer) => Buffer.compare(a, b) < 0 : (a: Buffer, b: Buffer) => Buffer.compare(a, b) > 0;

  const merged: Item[] = [];
  while (merged.length < count) {
    // Every shard that may still hold items must show its next one before the merge can choose.
    const dry = streams.filter((stream) => stream.buffer.length === 0 && !stream.done);
    await Promise.all(dry.map((stream) => readMore(stream, attribute, count - merged.length)));
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

function shardStream(query: ShardedQuery, pk: string, attribute: string, share: number): ShardStream {
  const condition = query.after === undefined ? "" : query.order === "key" ? " AND #sort > :after" : " AND #sort < :after";
  const sizing = { limit: share, wanted: 0 };
  const pages = queryPages(query.client, () => ({
    TableName: query.tableName,
    KeyConditionExpression: `#pk = :pk${condition}`,
    ExpressionAttributeNames: { "#pk": RECORD_TABLE.partitionKey.name, ...(condition === "" ? {} : { "#sort": attribute }) },
    ExpressionAttributeValues: { ":pk": { S: pk }, ...(query.after === undefined ? {} : { ":after": { S: query.after } }) },
    Limit: Math.min(sizing.limit, sizing.wanted + 1),
    // The index is read backwards (newest first); a global secondary index cannot be read consistently.
    ...(query.order === "newest" ? { IndexName: RECORD_TABLE.newestIndex.name, ScanIndexForward: false } : { ConsistentRead: true }),
  }));
  return { pages, sizing, buffer: [], done: false };
}

async function readMore(stream: ShardStream, attribute: string, wanted: number): Promise<void> {
  stream.sizing.wanted = wanted;
  do {
    const next = await stream.pages.next();
    if (next.done === true) {
      stream.done = true;
      return;
    }
    for (const item of next.value) {
      stream.buffer.push({ item, sortValue: Buffer.from(item[attribute]?.S ?? "", "utf8") });
    }
    stream.sizing.limit *= 2;
  } while (stream.buffer.length === 0);
}
