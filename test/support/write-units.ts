import {
  BatchGetItemCommand,
  DescribeTableCommand,
  DynamoDBClient,
  type AttributeValue,
  type KeysAndAttributes,
  type ConsumedCapacity,
  type TransactWriteItem,
} from "@aws-sdk/client-dynamodb";
import { ReportedCapacity } from "./reported-capacity";

/**
 * Counts the write units a DynamoDB client spends, as DynamoDB bills them
 * (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/read-write-operations.html):
 * every item written costs ceil(size / 1 KB) WRU, the size being the larger of
 * the item before and after the write (PutItem, UpdateItem, DeleteItem alike);
 * inside TransactWriteItems every action costs twice that, and a
 * ConditionCheck is counted as a transactional write of 2 (docs/hot-keys.md).
 *
 * The sizes are read, not guessed: the counter reads each written key before
 * and after the command through its own client (outside the middleware), so
 * an update that grows an item, or a put over a bigger one, is billed at the
 * bigger size. It reads them in consistent BatchGetItem calls of up to 100
 * keys (a GetItem per key was most of the calls an idle run's test made). It
 * also asks DynamoDB for ConsumedCapacity (TOTAL) and keeps what came back.
 */
export interface WriteUnit {
  /** The command's number, counted from 1 in the order sent: the actions of one transaction share it. */
  readonly seq: number;
  readonly command: string;
  /** The key written (pk, sk). */
  readonly pk: string;
  readonly sk: string;
  /** Put, Update, Delete or ConditionCheck. */
  readonly action: string;
  readonly transactional: boolean;
  readonly wru: number;
  /** Set on a write of a global secondary index that the item's write caused (billed as a standard write). */
  readonly index?: string;
}

export interface WriteUnitCounter {
  readonly writes: WriteUnit[];
  /** The ConsumedCapacity.CapacityUnits DynamoDB (Local) reported, per command, summed; undefined when it sent none. */
  readonly reported: ReportedCapacity;
  reset(): void;
  total(filter?: (write: WriteUnit) => boolean): number;
}

const KB = 1024;

/** DynamoDB's item size: attribute names plus values (strings and binaries by length, numbers about a byte per two digits). */
export function itemSizeBytes(item: Record<string, AttributeValue>): number {
  let bytes = 0;
  for (const [name, value] of Object.entries(item)) bytes += Buffer.byteLength(name, "utf8") + valueSize(value);
  return bytes;
}

function valueSize(value: AttributeValue): number {
  if (value.S !== undefined) return Buffer.byteLength(value.S, "utf8");
  if (value.N !== undefined) return numberSize(value.N);
  if (value.B !== undefined) return value.B.length;
  if (value.BOOL !== undefined || value.NULL !== undefined) return 1;
  if (value.SS !== undefined) return value.SS.reduce((sum, s) => sum + Buffer.byteLength(s, "utf8"), 0);
  if (value.NS !== undefined) return value.NS.reduce((sum, n) => sum + numberSize(n), 0);
  if (value.BS !== undefined) return value.BS.reduce((sum, b) => sum + b.length, 0);
  if (value.M !== undefined) return 3 + Object.entries(value.M).reduce((sum, [name, inner]) => sum + 1 + Buffer.byteLength(name, "utf8") + valueSize(inner), 0);
  if (value.L !== undefined) return 3 + value.L.reduce((sum, inner) => sum + 1 + valueSize(inner), 0);
  return 0;
}

function numberSize(n: string): number {
  const digits = n.replace(/^-/, "").replace(/[.eE].*$/, "").replace(/^0+/, "").length || 1;
  return Math.ceil(digits / 2) + 1;
}

interface KeyedAction {
  readonly action: string;
  readonly tableName: string;
  readonly key: Record<string, AttributeValue>;
}

function keyOf(item: Record<string, AttributeValue>): Record<string, AttributeValue> {
  return { pk: item["pk"]!, sk: item["sk"]! };
}

function actionsOf(command: string, input: Record<string, unknown>): KeyedAction[] {
  switch (command) {
    case "PutItemCommand":
      return [{ action: "Put", tableName: input["TableName"] as string, key: keyOf(input["Item"] as Record<string, AttributeValue>) }];
    case "UpdateItemCommand":
      return [{ action: "Update", tableName: input["TableName"] as string, key: input["Key"] as Record<string, AttributeValue> }];
    case "DeleteItemCommand":
      return [{ action: "Delete", tableName: input["TableName"] as string, key: input["Key"] as Record<string, AttributeValue> }];
    case "BatchWriteItemCommand": {
      const out: KeyedAction[] = [];
      for (const [tableName, requests] of Object.entries(input["RequestItems"] as Record<string, { PutRequest?: { Item: Record<string, AttributeValue> }; DeleteRequest?: { Key: Record<string, AttributeValue> } }[]>)) {
        for (const request of requests) {
          if (request.PutRequest) out.push({ action: "Put", tableName, key: keyOf(request.PutRequest.Item) });
          if (request.DeleteRequest) out.push({ action: "Delete", tableName, key: request.DeleteRequest.Key });
        }
      }
      return out;
    }
    case "TransactWriteItemsCommand":
      return (input["TransactItems"] as TransactWriteItem[]).map((item) => {
        if (item.Put) return { action: "Put", tableName: item.Put.TableName!, key: keyOf(item.Put.Item!) };
        if (item.Update) return { action: "Update", tableName: item.Update.TableName!, key: item.Update.Key! };
        if (item.Delete) return { action: "Delete", tableName: item.Delete.TableName!, key: item.Delete.Key! };
        return { action: "ConditionCheck", tableName: item.ConditionCheck!.TableName!, key: item.ConditionCheck!.Key! };
      });
    default:
      return [];
  }
}

/** An action's table and key, as one string. */
function keyId(action: KeyedAction): string {
  return JSON.stringify([action.tableName, action.key["pk"], action.key["sk"]]);
}

/** BatchGetItem's limit on keys per call. */
const BATCH_GET_MAX = 100;

/** The items at the actions' keys (by keyId; absent when there is none), read consistently through `reader`. */
async function itemsAt(reader: DynamoDBClient, actions: readonly KeyedAction[]): Promise<Map<string, Record<string, AttributeValue>>> {
  const found = new Map<string, Record<string, AttributeValue>>();
  const unique = [...new Map(actions.map((action) => [keyId(action), action])).values()];
  for (let start = 0; start < unique.length; start += BATCH_GET_MAX) {
    let request: Record<string, KeysAndAttributes> = {};
    for (const action of unique.slice(start, start + BATCH_GET_MAX)) {
      (request[action.tableName] ??= { Keys: [], ConsistentRead: true }).Keys!.push(action.key);
    }
    // A batch over 16 MB comes back in parts: the keys left are asked again.
    while (Object.keys(request).length > 0) {
      const out = await reader.send(new BatchGetItemCommand({ RequestItems: request }));
      for (const [tableName, items] of Object.entries(out.Responses ?? {})) {
        for (const item of items) found.set(keyId({ action: "", tableName, key: keyOf(item) }), item);
      }
      request = out.UnprocessedKeys ?? {};
    }
  }
  return found;
}

/** The size of the index-th action's item when it is a Put (from the request), else undefined. */
function put(command: string, input: Record<string, unknown>, index: number): number | undefined {
  if (command === "PutItemCommand") return itemSizeBytes(input["Item"] as Record<string, AttributeValue>);
  if (command === "TransactWriteItemsCommand") {
    const item = (input["TransactItems"] as TransactWriteItem[])[index]?.Put?.Item;
    return item === undefined ? undefined : itemSizeBytes(item);
  }
  if (command === "BatchWriteItemCommand") {
    const requests = Object.values(input["RequestItems"] as Record<string, { PutRequest?: { Item: Record<string, AttributeValue> } }[]>).flat();
    const item = requests[index]?.PutRequest?.Item;
    return item === undefined ? undefined : itemSizeBytes(item);
  }
  return undefined;
}

/** A table's global secondary indexes as DynamoDB describes them (their keys and projection): what the counter bills. */
export async function describedIndexes(reader: DynamoDBClient, tableName: string): Promise<IndexBilling[]> {
  const described = await reader.send(new DescribeTableCommand({ TableName: tableName }));
  return (described.Table?.GlobalSecondaryIndexes ?? []).map((index) => ({
    name: index.IndexName ?? "",
    keys: (index.KeySchema ?? []).map((key) => key.AttributeName ?? "").filter((name) => name !== "pk" && name !== "sk"),
    projection: index.Projection?.ProjectionType === "ALL" ? "ALL" : "KEYS_ONLY",
  }));
}

/** A global secondary index of the table, as the counter bills its writes. */
export interface IndexBilling {
  readonly name: string;
  /** Its key attributes besides the table's (pk, sk). */
  readonly keys: readonly string[];
  /** INCLUDE is not billed here: the record table's indexes project ALL or their keys. */
  readonly projection: "ALL" | "KEYS_ONLY";
}

/** The index's entry for an item: the table's keys, the index's keys, and what it projects. */
function indexEntry(item: Record<string, AttributeValue>, index: IndexBilling): Record<string, AttributeValue> {
  if (index.projection === "ALL") return item;
  const entry: Record<string, AttributeValue> = {};
  for (const name of ["pk", "sk", ...index.keys]) if (item[name] !== undefined) entry[name] = item[name]!;
  return entry;
}

/**
 * An item's write, as it reaches one global secondary index ("Global secondary indexes in DynamoDB", write capacity):
 * an item that gains the index's key is one index write, one that loses it one, one whose key value changes two (the old
 * entry deleted, the new one put); one that keeps its key value is one write when a projected attribute changed, none
 * otherwise. Each write is the entry's size in 1 KB units, a standard write even inside a transaction.
 */
export function indexWriteUnits(before: Record<string, AttributeValue> | undefined, after: Record<string, AttributeValue> | undefined, index: IndexBilling): number[] {
  const keyOf = (item: Record<string, AttributeValue> | undefined) => (item === undefined || index.keys.some((name) => item[name] === undefined) ? undefined : JSON.stringify(index.keys.map((name) => item[name])));
  const units = (item: Record<string, AttributeValue>) => Math.max(1, Math.ceil(itemSizeBytes(indexEntry(item, index)) / KB));
  const [was, is] = [keyOf(before), keyOf(after)];
  if (was === undefined && is === undefined) return [];
  if (was === undefined) return [units(after!)];
  if (is === undefined) return [units(before!)];
  if (was !== is) return [units(before!), units(after!)];
  return JSON.stringify(indexEntry(before!, index)) === JSON.stringify(indexEntry(after!, index)) ? [] : [units(after!)];
}

/** Adds the counting middleware to `client`; `reader` (a second client on the same endpoint) reads the sizes. */
export function countWriteUnits(client: DynamoDBClient, reader: DynamoDBClient, indexes: readonly IndexBilling[] = []): WriteUnitCounter {
  const writes: WriteUnit[] = [];
  let seq = 0;
  const reported = new ReportedCapacity();
  const sizeOf = (item: Record<string, AttributeValue> | undefined): number => (item === undefined ? 0 : itemSizeBytes(item));
  /** The item a Put writes, from the request. */
  const putItem = (command: string, input: Record<string, unknown>, index: number): Record<string, AttributeValue> | undefined => {
    if (command === "PutItemCommand") return input["Item"] as Record<string, AttributeValue>;
    if (command === "TransactWriteItemsCommand") return (input["TransactItems"] as TransactWriteItem[])[index]?.Put?.Item;
    if (command === "BatchWriteItemCommand") {
      const requests = Object.values(input["RequestItems"] as Record<string, { PutRequest?: { Item: Record<string, AttributeValue> } }[]>).flat();
      return requests[index]?.PutRequest?.Item;
    }
    return undefined;
  };
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const command = context.commandName ?? "";
      const input = args.input as Record<string, unknown>;
      const actions = actionsOf(command, input);
      if (actions.length === 0) return next(args);
      input["ReturnConsumedCapacity"] = "TOTAL";
      // A Put's new size is in the request; every item's size before is read (a Put over a bigger item bills the bigger one).
      const requestSize = (action: KeyedAction, index: number): number | undefined => put(command, input, index);
      const written = actions.filter((action) => action.action !== "ConditionCheck");
      const itemsBefore = await itemsAt(reader, written);
      const before = actions.map((action) => (action.action === "ConditionCheck" ? 0 : sizeOf(itemsBefore.get(keyId(action)))));
      const result = await next(args);
      const updatedAfter = await itemsAt(reader, actions.filter((action) => action.action === "Update"));
      const after = actions.map((action, index) => requestSize(action, index) ?? (action.action === "Update" ? sizeOf(updatedAfter.get(keyId(action))) : 0));
      const itemAfter = (action: KeyedAction, index: number) =>
        action.action === "Put" ? putItem(command, input, index) : action.action === "Update" ? updatedAfter.get(keyId(action)) : undefined;
      const transactional = command === "TransactWriteItemsCommand";
      seq += 1;
      const number = seq;
      actions.forEach((action, index) => {
        const units =
          action.action === "ConditionCheck" ? 1 : Math.max(1, Math.ceil(Math.max(before[index]!, after[index]!) / KB));
        writes.push({
          seq: number,
          command,
          pk: action.key["pk"]?.S ?? "",
          sk: action.key["sk"]?.S ?? "",
          action: action.action,
          transactional,
          wru: transactional ? 2 * units : units,
        });
        if (action.action === "ConditionCheck") return;
        for (const gsi of indexes) {
          for (const wru of indexWriteUnits(itemsBefore.get(keyId(action)), itemAfter(action, index), gsi)) {
            writes.push({ seq: number, command, pk: action.key["pk"]?.S ?? "", sk: action.key["sk"]?.S ?? "", action: action.action, transactional: false, wru, index: gsi.name });
          }
        }
      });
      const consumed = (result.output as { ConsumedCapacity?: ConsumedCapacity | ConsumedCapacity[] }).ConsumedCapacity;
      reported.record(number, consumed);
      return result;
    },
    { step: "initialize", name: "countWriteUnits" },
  );
  return {
    writes,
    reported,
    reset() {
      writes.length = 0;
      reported.reset();
    },
    total(filter = () => true) {
      return writes.filter(filter).reduce((sum, write) => sum + write.wru, 0);
    },
  };
}
