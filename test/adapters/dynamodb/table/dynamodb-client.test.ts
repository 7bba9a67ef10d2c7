import { DynamoDBClient, GetItemCommand, PutItemCommand } from "@aws-sdk/client-dynamodb";
import { inject, describe, expect, test } from "vitest";
import { createDynamoDbClient } from "../../../../lambdas/adapters/dynamodb/table/dynamodb-client";
import { useTestTable } from "../../../support/dynamodb";

const table = useTestTable();

/** A logger that counts the calls the SDK's logger step reports: an `info` (or `error`) carrying the command's name. */
function countingLogger() {
  const calls = { count: 0 };
  const count = (entry?: unknown) => {
    if (typeof entry === "object" && entry !== null && "commandName" in entry) calls.count += 1;
  };
  const ignore = () => undefined;
  return { calls, logger: { trace: ignore, debug: ignore, info: count, warn: ignore, error: count } };
}

const config = () => ({
  endpoint: inject("dynamodbEndpoint")!,
  region: "us-east-1",
  credentials: { accessKeyId: "test", secretAccessKey: "test" },
});

async function putAndGet(client: DynamoDBClient): Promise<string | undefined> {
  const key = { pk: { S: "CLIENT#logger" }, sk: { S: "ITEM" } };
  await client.send(new PutItemCommand({ TableName: table.tableName, Item: { ...key, value: { S: "kept" } } }));
  const out = await client.send(new GetItemCommand({ TableName: table.tableName, Key: key, ConsistentRead: true }));
  return out.Item?.["value"]?.S;
}

describe("createDynamoDbClient", () => {
  test("the SDK's logger step is off every call's path: the client never walks a call's input and output for a logger, and still reads what it wrote", async () => {
    const plain = countingLogger();
    const sdkDefault = new DynamoDBClient({ ...config(), logger: plain.logger });
    const ours = countingLogger();
    const client = createDynamoDbClient({ ...config(), logger: ours.logger });
    try {
      // The control: the SDK's default client hands both calls to its logger, so the count below is not vacuous.
      expect(await putAndGet(sdkDefault)).toBe("kept");
      expect(plain.calls.count).toBe(2);
      expect(await putAndGet(client)).toBe("kept");
      expect(ours.calls.count).toBe(0);
    } finally {
      sdkDefault.destroy();
      client.destroy();
    }
  });
});
