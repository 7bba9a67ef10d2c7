import { BatchGetItemCommand, type AttributeValue, type DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { StoreUnavailableError } from "../../../domain/core/errors";
import { RECORD_TABLE } from "../table/table-definition";

type Item = Record<string, AttributeValue>;

/** Keys in one BatchGetItem (DynamoDB's limit), and calls for one set of keys before its unprocessed keys become StoreUnavailableError. */
const BATCH_GET_MAX_KEYS = 100;
const BATCH_GET_ATTEMPTS = 5;

/**
 * The heads the newest-first index listed, read from the table in the index's
 * order: the index projects its keys only (RECORD_TABLE.newestIndex), so a
 * head's write that keeps its `newest` value costs the index nothing ("Global
 * secondary indexes in DynamoDB": no index write when neither the index's key
 * nor a projected attribute changes). Eventually consistent, as the index
 * itself; a head deleted since the index listed it is left out.
 */
export async function readNewestHeads(client: Pick<DynamoDBClient, "send">, tableName: string, listed: readonly Item[]): Promise<Item[]> {
  const keyOf = (item: Item) => JSON.stringify([item[RECORD_TABLE.partitionKey.name]?.S, item[RECORD_TABLE.sortKey.name]?.S]);
  const found = new Map<string, Item>();
  const chunks: Item[][] = [];
  for (let at = 0; at < listed.length; at += BATCH_GET_MAX_KEYS) chunks.push(listed.slice(at, at + BATCH_GET_MAX_KEYS));
  await Promise.all(
    chunks.map(async (chunk) => {
      let keys: Item[] = chunk.map((item) => ({ [RECORD_TABLE.partitionKey.name]: item[RECORD_TABLE.partitionKey.name]!, [RECORD_TABLE.sortKey.name]: item[RECORD_TABLE.sortKey.name]! }));
      for (let attempt = 0; keys.length > 0; attempt += 1) {
        if (attempt === BATCH_GET_ATTEMPTS) throw new StoreUnavailableError(`${keys.length} record heads left unprocessed after ${attempt} BatchGetItem calls`);
        const out = await client.send(new BatchGetItemCommand({ RequestItems: { [tableName]: { Keys: keys } } }));
        for (const head of out.Responses?.[tableName] ?? []) found.set(keyOf(head), head);
        keys = (out.UnprocessedKeys?.[tableName]?.Keys ?? []) as Item[];
      }
    }),
  );
  return listed.map((item) => found.get(keyOf(item))).filter((head): head is Item => head !== undefined);
}
