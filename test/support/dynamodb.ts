import { randomUUID } from "node:crypto";
import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { inject } from "vitest";
import { ensureTable } from "../../lambdas/store/table-definition";

/** A client for the run's DynamoDB Local (see dynamodb-local.global-setup.ts). */
export function testDynamoDbClient(): DynamoDBClient {
  const endpoint = inject("dynamodbEndpoint");
  // The unit tier (vitest.unit.config.ts) starts no DynamoDB Local: fail here, never fall through to AWS's endpoint.
  if (endpoint === undefined) throw new Error("no DynamoDB Local in this run: a test on DynamoDB belongs in `npm test`, not `npm run test:unit`");
  return new DynamoDBClient({
    endpoint,
    region: "us-east-1",
    credentials: { accessKeyId: "test", secretAccessKey: "test" },
  });
}

/** A fresh, uniquely named table of the shared definition, so test files never see each other's data. */
export async function createTestTable(client: DynamoDBClient): Promise<string> {
  const tableName = `test-${randomUUID()}`;
  await ensureTable(client, tableName);
  return tableName;
}
