import {
  BatchWriteItemCommand,
  GetItemCommand,
  TransactGetItemsCommand,
  type AttributeValue,
  type DynamoDBClient,
} from "@aws-sdk/client-dynamodb";
import { queryAll } from "../table/query-all";
import type { Collection } from "../../../domain/core/entities";
import { StoreUnavailableError } from "../../../domain/core/errors";
import { ATTR, partPartitionKey, partSortKey, stagedPartPrefix } from "./keys";
import type { StagedRecord } from "./page-transactions";

/**
 * A record's document across its head and parts (./keys.ts): read whole, and
 * the parts a committed head no longer names dropped.
 */

type Item = Record<string, AttributeValue>;

/** Re-reads of a split record whose parts changed under a concurrent write. */
const ASSEMBLE_ATTEMPTS = 3;
/** DynamoDB: at most 25 requests in one BatchWriteItem. */
const BATCH_WRITE_MAX = 25;
/** Rounds of BatchWriteItem for the requests DynamoDB left unprocessed. */
const BATCH_WRITE_ATTEMPTS = 5;

/** The client (at the store's edge: busy errors already StoreUnavailableError) and the table. */
export interface PartsTable {
  readonly client: Pick<DynamoDBClient, "send">;
  readonly tableName: string;
}

/** The number of part items a head names (absent: 0). */
export function partCount(head: Item): number {
  const raw = head[ATTR.parts]?.N;
  return raw === undefined ? 0 : Number(raw);
}

/**
 * The document JSON of a head, with its parts when it was split; null when
 * the record vanished. Parts written with their head are read with it in one
 * snapshot; staged parts are immutable (their version is the content's
 * hash), so they are read as they are and the head read again if a newer
 * commit dropped them meanwhile.
 */
export async function readRecordDoc(table: PartsTable, connectionId: string, collection: Collection, listedHead: Item): Promise<string | null> {
  let head = listedHead;
  for (let attempt = 1; ; attempt += 1) {
    const parts = partCount(head);
    if (parts === 0) return head[ATTR.doc]?.S ?? "";
    if (attempt > ASSEMBLE_ATTEMPTS) {
      throw new Error(`${collection} record ${head[ATTR.key]?.S}: its parts kept changing while being read`);
    }
    const partPk = partPartitionKey(connectionId, collection, head[ATTR.sk]?.S ?? "");
    const version = head[ATTR.partsVersion]?.S;
    if (version !== undefined) {
      const chunks = await stagedChunks(table, partPk, version);
      if (chunks.length === parts) return (head[ATTR.doc]?.S ?? "") + chunks.join("");
      const current = await readHead(table, head);
      if (current === undefined) return null;
      head = current;
      continue;
    }
    // One atomic snapshot of head and parts: they all come from the same committed write.
    const out = await table.client.send(
      new TransactGetItemsCommand({
        TransactItems: [
          { Get: { TableName: table.tableName, Key: { [ATTR.pk]: head[ATTR.pk]!, [ATTR.sk]: head[ATTR.sk]! } } },
          ...Array.from({ length: parts }, (_, index) => ({
            Get: { TableName: table.tableName, Key: { [ATTR.pk]: { S: partPk }, [ATTR.sk]: { S: partSortKey(index + 1) } } },
          })),
        ],
      }),
    );
    const responses = out.Responses ?? [];
    const current = responses[0]?.Item;
    if (current === undefined) return null;
    if (partCount(current) !== parts || current[ATTR.partsVersion] !== undefined) {
      head = current; // rewritten in between with another part count or staged parts: read again
      continue;
    }
    let doc = current[ATTR.doc]?.S ?? "";
    for (let index = 1; index <= parts; index += 1) {
      const chunk = responses[index]?.Item?.[ATTR.doc]?.S;
      if (chunk === undefined) throw new Error(`${collection} record ${current[ATTR.key]?.S}: part ${index} is missing`);
      doc += chunk;
    }
    return doc;
  }
}

async function readHead(table: PartsTable, head: Item): Promise<Item | undefined> {
  const out = await table.client.send(
    new GetItemCommand({ TableName: table.tableName, Key: { [ATTR.pk]: head[ATTR.pk]!, [ATTR.sk]: head[ATTR.sk]! }, ConsistentRead: true }),
  );
  return out.Item;
}

/** The chunks of one staged version, in part order (the 4-digit part number sorts as a number). */
async function stagedChunks(table: PartsTable, partPk: string, version: string): Promise<string[]> {
  const items = await queryAll(table.client, {
    TableName: table.tableName,
    KeyConditionExpression: "#pk = :pk AND begins_with(#sk, :prefix)",
    ExpressionAttributeNames: { "#pk": ATTR.pk, "#sk": ATTR.sk },
    ExpressionAttributeValues: { ":pk": { S: partPk }, ":prefix": { S: stagedPartPrefix(version) } },
    ConsistentRead: true,
  });
  return items.map((item) => item[ATTR.doc]?.S ?? "");
}

/**
 * Deletes every part of a staged record but its committed version's: the
 * versions of earlier contents, one a crashed page staged, the parts of an
 * earlier unstaged split. Run once the head naming `version` has committed;
 * a crash before it leaves them for the record's next staged write (or the
 * purge of the connection) to drop.
 */
export async function dropStaleParts(table: PartsTable, staged: StagedRecord): Promise<void> {
  const keep = stagedPartPrefix(staged.version);
  const parts = await queryAll(table.client, {
    TableName: table.tableName,
    KeyConditionExpression: "#pk = :pk",
    ProjectionExpression: "#pk, #sk",
    ExpressionAttributeNames: { "#pk": ATTR.pk, "#sk": ATTR.sk },
    ExpressionAttributeValues: { ":pk": { S: staged.partitionKey } },
    ConsistentRead: true,
  });
  const stale = parts.filter((item) => !(item[ATTR.sk]?.S ?? "").startsWith(keep));
  for (let start = 0; start < stale.length; start += BATCH_WRITE_MAX) await deleteAll(table, stale.slice(start, start + BATCH_WRITE_MAX));
}

async function deleteAll(table: PartsTable, keys: readonly Item[]): Promise<void> {
  let requests = keys.map((key) => ({ DeleteRequest: { Key: key } }));
  for (let attempt = 1; requests.length > 0; attempt += 1) {
    if (attempt > BATCH_WRITE_ATTEMPTS) throw new StoreUnavailableError("the store left stale record parts undeleted; the page is retried");
    const out = await table.client.send(new BatchWriteItemCommand({ RequestItems: { [table.tableName]: requests } }));
    requests = (out.UnprocessedItems?.[table.tableName] ?? []).flatMap((request) => (request.DeleteRequest?.Key === undefined ? [] : [{ DeleteRequest: { Key: request.DeleteRequest.Key } }]));
  }
}
