import { randomUUID } from "node:crypto";
import { BatchWriteItemCommand, type DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { describe, expect, test } from "vitest";
import { queryAll, queryCounts, queryPages } from "../../../../lambdas/adapters/dynamodb/table/query-all";
import { testDynamoDbClient, useTestTable } from "../../../support/dynamodb";

const table = useTestTable();

/** 100 KB a item: about ten fill DynamoDB's 1 MB response, so a partition of them spans several pages. */
const LARGE_DOC = "x".repeat(100 * 1024);

/** `count` items in one new partition, sk 000, 001, ...; returns the partition key. */
async function partition(count: number, doc: string): Promise<string> {
  const pk = `QUERYALL#${randomUUID()}`;
  const requests = Array.from({ length: count }, (_, i) => ({
    PutRequest: { Item: { pk: { S: pk }, sk: { S: String(i).padStart(3, "0") }, doc: { S: doc } } },
  }));
  for (let start = 0; start < requests.length; start += 10) {
    await table.client.send(new BatchWriteItemCommand({ RequestItems: { [table.tableName]: requests.slice(start, start + 10) } }));
  }
  return pk;
}

/** A client that records the Limit of every Query it sends. */
function countingClient(): { client: DynamoDBClient; limits: (number | undefined)[] } {
  const client = testDynamoDbClient();
  const limits: (number | undefined)[] = [];
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName === "QueryCommand") limits.push((args.input as { Limit?: number }).Limit);
      return next(args);
    },
    { step: "initialize" },
  );
  return { client, limits };
}

const query = (pk: string) => ({
  TableName: table.tableName,
  KeyConditionExpression: "#pk = :pk",
  ExpressionAttributeNames: { "#pk": "pk" },
  ExpressionAttributeValues: { ":pk": { S: pk } },
  ConsistentRead: true,
});

const sortKeys = (items: readonly Record<string, { S?: string }>[]) => items.map((item) => item["sk"]?.S);
const expectedKeys = (count: number) => Array.from({ length: count }, (_, i) => String(i).padStart(3, "0"));

describe("queryAll: every item of a Query, whatever the number of pages", () => {
  test("a partition over DynamoDB's 1 MB response is read to its last item, in order, across pages", async () => {
    const pk = await partition(35, LARGE_DOC);
    const { client, limits } = countingClient();
    const items = await queryAll(client, query(pk));
    expect(sortKeys(items)).toEqual(expectedKeys(35));
    expect(limits.length).toBeGreaterThanOrEqual(4); // 3.5 MB: at least four responses
    client.destroy();
  });

  test("a Query with a page Limit is followed page after page, the last one short", async () => {
    const pk = await partition(23, "{}");
    const { client, limits } = countingClient();
    const items = await queryAll(client, { ...query(pk), Limit: 5 });
    expect(sortKeys(items)).toEqual(expectedKeys(23));
    expect(limits).toEqual([5, 5, 5, 5, 5]);
    client.destroy();
  });

  test("an empty partition is one Query and no item", async () => {
    const { client, limits } = countingClient();
    expect(await queryAll(client, query(`QUERYALL#${randomUUID()}`))).toEqual([]);
    expect(limits).toEqual([undefined]);
    client.destroy();
  });

  test("with a limit, at most that many items: each page asks only for what is still missing", async () => {
    const pk = await partition(30, LARGE_DOC);
    const { client, limits } = countingClient();
    const items = await queryAll(client, query(pk), { limit: 25 });
    expect(sortKeys(items)).toEqual(expectedKeys(25));
    // The 1 MB response cuts each page short of its Limit, so the next page asks for the rest.
    expect(limits[0]).toBe(25);
    expect(limits.length).toBeGreaterThanOrEqual(3);
    for (let i = 1; i < limits.length; i += 1) expect(limits[i]).toBeLessThan(limits[i - 1]!);
    client.destroy();
  });

  test("a limit above the partition's size returns the partition whole", async () => {
    const pk = await partition(4, "{}");
    expect(sortKeys(await queryAll(table.client, query(pk), { limit: 10 }))).toEqual(expectedKeys(4));
  });
});

describe("queryPages: one page at a time, sent only when asked for", () => {
  test("leaving the loop after the first page sends no second Query", async () => {
    const pk = await partition(12, "{}");
    const { client, limits } = countingClient();
    for await (const page of queryPages(client, { ...query(pk), Limit: 4 })) {
      expect(sortKeys(page)).toEqual(expectedKeys(4));
      break;
    }
    expect(limits).toEqual([4]);
    client.destroy();
  });

  test("a query given as a function is asked again before each page (the Limit may move between pages)", async () => {
    const pk = await partition(12, "{}");
    const { client, limits } = countingClient();
    let limit = 2;
    const pages: (string | undefined)[][] = [];
    for await (const page of queryPages(client, () => ({ ...query(pk), Limit: limit }))) {
      pages.push(sortKeys(page));
      limit *= 2;
    }
    expect(pages.flat()).toEqual(expectedKeys(12));
    expect(limits).toEqual([2, 4, 8]);
    client.destroy();
  });
});

describe("queryCounts: a Select COUNT Query's count, page by page", () => {
  test("a count over DynamoDB's 1 MB read limit comes in several pages that add up to every item", async () => {
    const pk = await partition(35, LARGE_DOC);
    const { client, limits } = countingClient();
    const pages: number[] = [];
    for await (const count of queryCounts(client, { ...query(pk), Select: "COUNT" })) pages.push(count);
    expect(pages.length).toBeGreaterThanOrEqual(4); // COUNT still reads 1 MB a page: 3.5 MB is at least four
    expect(pages.length).toBe(limits.length);
    expect(pages.reduce((sum, count) => sum + count, 0)).toBe(35);
    client.destroy();
  });
});
