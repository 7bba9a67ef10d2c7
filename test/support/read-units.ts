import {
  DynamoDBClient,
  GetItemCommand,
  QueryCommand,
  ScanCommand,
  type AttributeValue,
  type ConsumedCapacity,
  type KeysAndAttributes,
  type QueryCommandInput,
  type ScanCommandInput,
  type TransactGetItem,
} from "@aws-sdk/client-dynamodb";
import { ReportedCapacity } from "./reported-capacity";
import { itemSizeBytes } from "./write-units";

/**
 * Counts the read units a DynamoDB client spends, as DynamoDB bills them
 * (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/read-write-operations.html):
 * a GetItem costs ceil(item size / 4 KB) RRU, halved when eventually
 * consistent, and a missing item still costs the minimum (1, or 0.5); a
 * BatchGetItem bills each of its items as a GetItem; a TransactGetItems bills
 * each item twice a strong read; a Query or Scan bills the summed size of the
 * items it read (before any filter, whatever the projection) rounded up to
 * 4 KB once per call, halved when eventually consistent, with the same
 * minimum when it finds nothing. (A ConditionCheck is billed as a write: see
 * ./write-units.ts.)
 *
 * The sizes are read, not guessed: what a projection or filter kept out of the
 * reply is read again in full through `reader` (a second client, outside the
 * middleware). It also asks DynamoDB for ConsumedCapacity (TOTAL) and keeps
 * what came back, to compare.
 */
export interface ReadUnit {
  /** The command's number, counted from 1 in the order sent. */
  readonly seq: number;
  readonly command: string;
  /** The partition read (a Query's :pk value, a Get's pk; a Scan's is ""). */
  readonly pk: string;
  /** Items read (a Get of a missing item reads 0), and their summed size in bytes. */
  readonly items: number;
  readonly bytes: number;
  readonly consistent: boolean;
  readonly transactional: boolean;
  readonly rru: number;
}

export interface ReadUnitCounter {
  readonly reads: ReadUnit[];
  /** The ConsumedCapacity.CapacityUnits DynamoDB (Local) reported, per command, summed; undefined when it sent none. */
  readonly reported: ReportedCapacity;
  reset(): void;
  total(filter?: (read: ReadUnit) => boolean): number;
}

const READ_UNIT_BYTES = 4 * 1024;

/** One read's units: its size in 4 KB steps (at least one), halved when eventually consistent. */
export function readUnits(bytes: number, consistent: boolean): number {
  const units = Math.max(1, Math.ceil(bytes / READ_UNIT_BYTES));
  return consistent ? units : units / 2;
}

const READ_COMMANDS = new Set(["GetItemCommand", "BatchGetItemCommand", "TransactGetItemsCommand", "QueryCommand", "ScanCommand"]);

/** The names and values an expression set still uses, once the projection and filter are dropped. */
function usedOnly<T>(map: Record<string, T> | undefined, expressions: (string | undefined)[]): Record<string, T> | undefined {
  if (map === undefined) return undefined;
  const text = expressions.filter((expression) => expression !== undefined).join(" ");
  const kept = Object.entries(map).filter(([token]) => new RegExp(`${token.replace(/[$]/g, "\\$")}(?![A-Za-z0-9_])`).test(text));
  return kept.length === 0 ? undefined : Object.fromEntries(kept);
}

/** Adds the counting middleware to `client`; `reader` (a second client on the same endpoint) reads the full sizes. */
export function countReadUnits(client: DynamoDBClient, reader: DynamoDBClient): ReadUnitCounter {
  const reads: ReadUnit[] = [];
  let seq = 0;
  const reported = new ReportedCapacity();
  const fullSize = async (tableName: string, key: Record<string, AttributeValue>): Promise<number> => {
    const out = await reader.send(new GetItemCommand({ TableName: tableName, Key: key, ConsistentRead: true }));
    return out.Item === undefined ? -1 : itemSizeBytes(out.Item);
  };
  /** The items a Query or Scan read: ScannedCount of them from the same start, read again without filter nor projection. */
  const scannedBytes = async (command: string, input: QueryCommandInput & ScanCommandInput, scanned: number, returned: Record<string, AttributeValue>[]) => {
    const whole = input.ProjectionExpression === undefined && input.FilterExpression === undefined && (input.Select ?? "ALL_ATTRIBUTES") === "ALL_ATTRIBUTES";
    if (whole || scanned === 0) return returned.reduce((sum, item) => sum + itemSizeBytes(item), 0);
    const expressions = [input.KeyConditionExpression];
    const again = {
      ...input,
      ProjectionExpression: undefined,
      FilterExpression: undefined,
      Select: undefined,
      ReturnConsumedCapacity: undefined,
      Limit: scanned,
      ExpressionAttributeNames: usedOnly(input.ExpressionAttributeNames, expressions),
      ExpressionAttributeValues: usedOnly(input.ExpressionAttributeValues, expressions),
    };
    const out = await reader.send(command === "QueryCommand" ? new QueryCommand(again) : new ScanCommand(again));
    return (out.Items ?? []).reduce((sum, item) => sum + itemSizeBytes(item), 0);
  };
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const command = context.commandName ?? "";
      if (!READ_COMMANDS.has(command)) return next(args);
      const input = args.input as Record<string, unknown>;
      input["ReturnConsumedCapacity"] = "TOTAL";
      const result = await next(args);
      const output = result.output as unknown as Record<string, unknown>;
      seq += 1;
      const number = seq;
      const push = (read: Omit<ReadUnit, "seq" | "command">) => reads.push({ seq: number, command, ...read });
      switch (command) {
        case "GetItemCommand": {
          const key = input["Key"] as Record<string, AttributeValue>;
          const consistent = input["ConsistentRead"] === true;
          const size = await fullSize(input["TableName"] as string, key);
          push({ pk: key["pk"]?.S ?? "", items: size < 0 ? 0 : 1, bytes: Math.max(0, size), consistent, transactional: false, rru: readUnits(Math.max(0, size), consistent) });
          break;
        }
        case "BatchGetItemCommand": {
          const unprocessed = (output["UnprocessedKeys"] ?? {}) as Record<string, KeysAndAttributes>;
          for (const [tableName, request] of Object.entries(input["RequestItems"] as Record<string, KeysAndAttributes>)) {
            const left = new Set((unprocessed[tableName]?.Keys ?? []).map((key) => JSON.stringify(key)));
            const consistent = request.ConsistentRead === true;
            for (const key of request.Keys ?? []) {
              if (left.has(JSON.stringify(key))) continue;
              const size = await fullSize(tableName, key);
              push({ pk: key["pk"]?.S ?? "", items: size < 0 ? 0 : 1, bytes: Math.max(0, size), consistent, transactional: false, rru: readUnits(Math.max(0, size), consistent) });
            }
          }
          break;
        }
        case "TransactGetItemsCommand": {
          for (const item of input["TransactItems"] as TransactGetItem[]) {
            const size = await fullSize(item.Get!.TableName!, item.Get!.Key!);
            push({ pk: item.Get!.Key!["pk"]?.S ?? "", items: size < 0 ? 0 : 1, bytes: Math.max(0, size), consistent: true, transactional: true, rru: 2 * readUnits(Math.max(0, size), true) });
          }
          break;
        }
        default: {
          const query = input as unknown as QueryCommandInput & ScanCommandInput;
          const scanned = (output["ScannedCount"] as number | undefined) ?? 0;
          const bytes = await scannedBytes(command, query, scanned, (output["Items"] as Record<string, AttributeValue>[] | undefined) ?? []);
          const consistent = query.ConsistentRead === true;
          const pk = command === "QueryCommand" ? (Object.values(query.ExpressionAttributeValues ?? {})[0]?.S ?? "") : "";
          push({ pk, items: scanned, bytes, consistent, transactional: false, rru: readUnits(bytes, consistent) });
        }
      }
      const consumed = output["ConsumedCapacity"] as ConsumedCapacity | ConsumedCapacity[] | undefined;
      reported.record(number, consumed);
      return result;
    },
    { step: "initialize", name: "countReadUnits" },
  );
  return {
    reads,
    reported,
    reset() {
      reads.length = 0;
      reported.reset();
    },
    total(filter = () => true) {
      return reads.filter(filter).reduce((sum, read) => sum + read.rru, 0);
    },
  };
}
