import {
  DynamoDBClient,
  GetItemCommand,
  type AttributeValue,
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
 * an update that grows an item is billed at its grown size. It also asks
 * DynamoDB for ConsumedCapacity (TOTAL) and keeps what came back, to compare.
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

/** Adds the counting middleware to `client`; `reader` (a second client on the same endpoint) reads the sizes. */
export function countWriteUnits(client: DynamoDBClient, reader: DynamoDBClient): WriteUnitCounter {
  const writes: WriteUnit[] = [];
  let seq = 0;
  const reported = new ReportedCapacity();
  const sizeOf = async (action: KeyedAction): Promise<number> => {
    const out = await reader.send(new GetItemCommand({ TableName: action.tableName, Key: action.key, ConsistentRead: true }));
    return out.Item === undefined ? 0 : itemSizeBytes(out.Item);
  };
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const command = context.commandName ?? "";
      const input = args.input as Record<string, unknown>;
      const actions = actionsOf(command, input);
      if (actions.length === 0) return next(args);
      input["ReturnConsumedCapacity"] = "TOTAL";
      // A Put's new size is in the request; only updates and deletes (and a Put over a bigger item) need a read.
      const requestSize = (action: KeyedAction, index: number): number | undefined => put(command, input, index);
      const before = await Promise.all(actions.map((action, index) => (requestSize(action, index) === undefined && action.action !== "ConditionCheck" ? sizeOf(action) : Promise.resolve(0))));
      const result = await next(args);
      const after = await Promise.all(actions.map((action, index) => requestSize(action, index) ?? (action.action === "Update" ? sizeOf(action) : Promise.resolve(0))));
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
