import { randomUUID } from "node:crypto";
import { GetItemCommand, type DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { createDynamoDbClient } from "../../lambdas/adapters/dynamodb/table/dynamodb-client";
import { afterAll, beforeAll, inject } from "vitest";
import { ensureTable } from "../../lambdas/adapters/dynamodb/table/table-definition";

/** A client for the run's DynamoDB Local (see dynamodb-local.global-setup.ts). */
export function testDynamoDbClient(): DynamoDBClient {
  const endpoint = inject("dynamodbEndpoint");
  // The unit tier (vitest.unit.config.ts) starts no DynamoDB Local: fail here, never fall through to AWS's endpoint.
  if (endpoint === undefined) throw new Error("no DynamoDB Local in this run: a test on DynamoDB belongs in `npm test`, not `npm run test:unit`");
  // The client every runtime builds, so the tests exercise its configuration.
  return createDynamoDbClient({
    endpoint,
    region: "us-east-1",
    credentials: { accessKeyId: "test", secretAccessKey: "test" },
  });
}

/** A name no other test file's table has, so test files never see each other's data. */
const testTableName = (): string => `test-${randomUUID()}`;

/** A fresh, uniquely named table of the shared definition. */
export async function createTestTable(client: DynamoDBClient): Promise<string> {
  const tableName = testTableName();
  await ensureTable(client, tableName);
  return tableName;
}

/** The table a test file works on: its name and client are known at once, so a file builds its stores at its top. */
export interface TestTable {
  readonly client: DynamoDBClient;
  readonly tableName: string;
}

/** A fresh table for this test file: made before its tests, its client destroyed after them. */
export function useTestTable(): TestTable {
  const table: TestTable = { client: testDynamoDbClient(), tableName: testTableName() };
  beforeAll(() => ensureTable(table.client, table.tableName));
  afterAll(() => table.client.destroy());
  return table;
}

/** One item of the table as DynamoDB holds it (a consistent read), or undefined. */
export async function readItem(table: TestTable, pk: string, sk: string) {
  const out = await table.client.send(new GetItemCommand({ TableName: table.tableName, Key: { pk: { S: pk }, sk: { S: sk } }, ConsistentRead: true }));
  return out.Item;
}
