import { QueryCommand, type AttributeValue, type DynamoDBClient, type QueryCommandInput, type QueryCommandOutput } from "@aws-sdk/client-dynamodb";
import { RECORD_TABLE } from "./table-definition";

type Item = Record<string, AttributeValue>;

/** A Query as every adapter writes it; where a page starts is this module's business. */
export type PagedQuery = Omit<QueryCommandInput, "ExclusiveStartKey">;

/**
 * Every page of one Query, in order: the one place that follows
 * `LastEvaluatedKey` (a response stops at 1 MB or at `Limit`). `query` may be
 * a function, asked again before each page, for a caller whose `Limit` moves
 * between pages (the sharded merge). Stopping the loop stops the reads: a page
 * is sent only when the caller asks for it.
 */
export async function* queryPages(client: Pick<DynamoDBClient, "send">, query: PagedQuery | (() => PagedQuery)): AsyncGenerator<Item[]> {
  for await (const out of queryResponses(client, query)) yield out.Items ?? [];
}

/** Each page's Count of one Query (a `Select: "COUNT"` page holds no items). */
export async function* queryCounts(client: Pick<DynamoDBClient, "send">, query: PagedQuery): AsyncGenerator<number> {
  for await (const out of queryResponses(client, query)) yield out.Count ?? 0;
}

async function* queryResponses(client: Pick<DynamoDBClient, "send">, query: PagedQuery | (() => PagedQuery)): AsyncGenerator<QueryCommandOutput> {
  let startKey: Item | undefined;
  do {
    const input = typeof query === "function" ? query() : query;
    const out = await client.send(new QueryCommand({ ...input, ...(startKey === undefined ? {} : { ExclusiveStartKey: startKey }) }));
    startKey = out.LastEvaluatedKey;
    yield out;
  } while (startKey !== undefined);
}

/**
 * Every item of one Query, read a page at a time; with `limit`, at most that
 * many (each page then asks only for what is still missing).
 */
export async function queryAll(client: Pick<DynamoDBClient, "send">, query: PagedQuery, options: { readonly limit?: number } = {}): Promise<Item[]> {
  const { limit } = options;
  const items: Item[] = [];
  for await (const page of queryPages(client, limit === undefined ? query : () => ({ ...query, Limit: limit - items.length }))) {
    items.push(...page);
    if (limit !== undefined && items.length >= limit) break;
  }
  return items;
}

/** A Query of every item of one partition, reading only `attributes` (each behind a placeholder, so a reserved word is safe). */
export function partitionQuery(tableName: string, pk: string, attributes: readonly string[], options: { readonly consistentRead?: boolean } = {}): PagedQuery {
  const names = Object.fromEntries(attributes.map((name, index) => [`#a${index}`, name]));
  return {
    TableName: tableName,
    KeyConditionExpression: "#pk = :pk",
    ProjectionExpression: Object.keys(names).join(", "),
    ExpressionAttributeNames: { "#pk": RECORD_TABLE.partitionKey.name, ...names },
    ExpressionAttributeValues: { ":pk": { S: pk } },
    ...(options.consistentRead === true ? { ConsistentRead: true } : {}),
  };
}
