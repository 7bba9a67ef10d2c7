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
  test("a new table has the records-newest index", async () => {
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
});
