import { randomUUID } from "node:crypto";
import { CreateTableCommand, DescribeTableCommand, type DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createTableInput, ensureTable, RECORD_TABLE } from "../../../../lambdas/adapters/dynamodb/table/table-definition";
import { testDynamoDbClient } from "../../../support/dynamodb";

let client: DynamoDBClient;
beforeAll(() => {
  client = testDynamoDbClient();
});
afterAll(() => client.destroy());

const indexNames = async (tableName: string) =>
  ((await client.send(new DescribeTableCommand({ TableName: tableName }))).Table?.GlobalSecondaryIndexes ?? []).map((index) => index.IndexName);

describe("ensureTable", () => {
  test("a new table has the newest-first index, keys only", async () => {
    const tableName = `test-${randomUUID()}`;
    await ensureTable(client, tableName);
    expect(await indexNames(tableName)).toEqual([RECORD_TABLE.newestIndex.name]);
  });

  test("a table from before the records-newest index gets it added, once (a data dir of an older npm start)", async () => {
    const tableName = `test-${randomUUID()}`;
    const { GlobalSecondaryIndexes: _index, AttributeDefinitions, ...older } = createTableInput(tableName);
    await client.send(
      new CreateTableCommand({ ...older, AttributeDefinitions: AttributeDefinitions!.filter((attribute) => attribute.AttributeName !== RECORD_TABLE.newestIndex.sortKey.name) }),
    );
    expect(await indexNames(tableName)).toEqual([]);
    await ensureTable(client, tableName);
    expect(await indexNames(tableName)).toEqual([RECORD_TABLE.newestIndex.name]);
    await ensureTable(client, tableName);
    expect(await indexNames(tableName)).toEqual([RECORD_TABLE.newestIndex.name]);
  });

  // "Global secondary indexes in DynamoDB": one index created or deleted per table update.
  test("a table with the old records-newest index (projection ALL) gets the keys-only one instead, the old one deleted first", async () => {
    const tableName = `test-${randomUUID()}`;
    const input = createTableInput(tableName);
    const [index] = input.GlobalSecondaryIndexes!;
    await client.send(
      new CreateTableCommand({ ...input, GlobalSecondaryIndexes: [{ ...index!, IndexName: RECORD_TABLE.legacyNewestIndexName, Projection: { ProjectionType: "ALL" } }] }),
    );
    await ensureTable(client, tableName);
    const described = (await client.send(new DescribeTableCommand({ TableName: tableName }))).Table?.GlobalSecondaryIndexes ?? [];
    expect(described.map((each) => [each.IndexName, each.Projection?.ProjectionType])).toEqual([[RECORD_TABLE.newestIndex.name, "KEYS_ONLY"]]);
  });
});
