import {
  BatchGetItemCommand,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
  TransactGetItemsCommand,
  type AttributeValue,
} from "@aws-sdk/client-dynamodb";
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "vitest";
import { countReadUnits, type ReadUnitCounter } from "./read-units";
import { testDynamoDbClient, useTestTable } from "./dynamodb";
import { itemSizeBytes } from "./write-units";

/**
 * The read-unit counter bills as DynamoDB's docs say (read-write-operations):
 * checked against items of known sizes on DynamoDB Local.
 */
const table = useTestTable();
const reader = testDynamoDbClient();
let counter: ReadUnitCounter;

/** An item of about `bytes` bytes (DynamoDB's size: names plus values). */
function itemOf(pk: string, sk: string, bytes: number): Record<string, AttributeValue> {
  const base = { pk: { S: pk }, sk: { S: sk }, doc: { S: "" } };
  return { ...base, doc: { S: "x".repeat(bytes - itemSizeBytes(base)) } };
}

beforeAll(async () => {
  counter = countReadUnits(table.client, reader);
  const items = [itemOf("P", "a", 3000), itemOf("P", "b", 3000), itemOf("P", "c", 3000), itemOf("BIG", "x", 5000), itemOf("Q", "a", 1000), itemOf("Q", "b", 1000), itemOf("Q", "c", 1000)];
  for (const item of items) await reader.send(new PutItemCommand({ TableName: table.tableName, Item: item }));
});
afterAll(() => reader.destroy());
beforeEach(() => counter.reset());

const key = (pk: string, sk: string) => ({ pk: { S: pk }, sk: { S: sk } });

describe("read units, as DynamoDB bills them", () => {
  test("a GetItem bills its item in 4 KB steps, halved when eventually consistent; a missing item still bills the minimum", async () => {
    await table.client.send(new GetItemCommand({ TableName: table.tableName, Key: key("BIG", "x"), ConsistentRead: true }));
    await table.client.send(new GetItemCommand({ TableName: table.tableName, Key: key("BIG", "x") }));
    await table.client.send(new GetItemCommand({ TableName: table.tableName, Key: key("P", "a"), ConsistentRead: true }));
    await table.client.send(new GetItemCommand({ TableName: table.tableName, Key: key("NONE", "x"), ConsistentRead: true }));
    await table.client.send(new GetItemCommand({ TableName: table.tableName, Key: key("NONE", "x") }));
    expect(counter.reads.map((read) => read.rru)).toEqual([2, 1, 1, 1, 0.5]);
  });

  test("a projection does not make a GetItem cheaper: the whole item is billed", async () => {
    await table.client.send(
      new GetItemCommand({ TableName: table.tableName, Key: key("BIG", "x"), ProjectionExpression: "#sk", ExpressionAttributeNames: { "#sk": "sk" }, ConsistentRead: true }),
    );
    expect(counter.total()).toBe(2);
  });

  test("a Query bills the summed size of the items it read, rounded up to 4 KB once (not per item), whatever its filter or projection", async () => {
    const query = { TableName: table.tableName, KeyConditionExpression: "#pk = :pk", ExpressionAttributeValues: { ":pk": { S: "P" } } as Record<string, AttributeValue>, ConsistentRead: true };
    await table.client.send(new QueryCommand({ ...query, ExpressionAttributeNames: { "#pk": "pk" } }));
    await table.client.send(
      new QueryCommand({
        ...query,
        ExpressionAttributeNames: { "#pk": "pk", "#doc": "doc", "#sk": "sk" },
        ExpressionAttributeValues: { ...query.ExpressionAttributeValues, ":short": { N: "10" } },
        FilterExpression: "size(#doc) < :short",
        ProjectionExpression: "#sk",
      }),
    );
    await table.client.send(new QueryCommand({ ...query, ExpressionAttributeNames: { "#pk": "pk" }, ConsistentRead: false }));
    // 3 x 3,000 bytes = 9,000 bytes: 3 units, though the filtered one returned no item.
    expect(counter.reads.map((read) => read.rru)).toEqual([3, 3, 1.5]);
  });

  test("a Query bills its items' sum rounded once: 3 items of 1,000 bytes are 1 unit, not 3; an empty Query bills its minimum", async () => {
    await table.client.send(
      new QueryCommand({ TableName: table.tableName, KeyConditionExpression: "#pk = :pk", ExpressionAttributeNames: { "#pk": "pk" }, ExpressionAttributeValues: { ":pk": { S: "Q" } }, ConsistentRead: true }),
    );
    await table.client.send(
      new QueryCommand({ TableName: table.tableName, KeyConditionExpression: "#pk = :pk", ExpressionAttributeNames: { "#pk": "pk" }, ExpressionAttributeValues: { ":pk": { S: "NONE" } } }),
    );
    expect(counter.reads.map((read) => read.rru)).toEqual([1, 0.5]);
    expect(counter.reads.map((read) => read.items)).toEqual([3, 0]);
  });

  test("a BatchGetItem bills each item as its own GetItem; a TransactGetItems bills each item twice a strong read", async () => {
    await table.client.send(new BatchGetItemCommand({ RequestItems: { [table.tableName]: { Keys: [key("P", "a"), key("BIG", "x")], ConsistentRead: true } } }));
    expect(counter.total()).toBe(1 + 2);
    counter.reset();
    await table.client.send(new TransactGetItemsCommand({ TransactItems: [{ Get: { TableName: table.tableName, Key: key("P", "a") } }, { Get: { TableName: table.tableName, Key: key("BIG", "x") } }] }));
    expect(counter.total()).toBe(2 * 1 + 2 * 2);
  });
});
