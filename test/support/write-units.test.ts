import { PutItemCommand } from "@aws-sdk/client-dynamodb";
import { afterAll, describe, expect, test } from "vitest";
import { countWriteUnits } from "./write-units";
import { testDynamoDbClient, useTestTable } from "./dynamodb";

const table = useTestTable();
const reader = testDynamoDbClient();
afterAll(() => reader.destroy());

const put = (sk: string, text: string) =>
  new PutItemCommand({ TableName: table.tableName, Item: { pk: { S: "WU#put" }, sk: { S: sk }, doc: { S: text } } });

describe("the write-unit counter (DynamoDB Local)", () => {
  test("a put over a bigger item is billed at the bigger item's size, as DynamoDB bills PutItem", async () => {
    const writer = testDynamoDbClient();
    try {
      await writer.send(put("replaced", "x".repeat(3000)));
      const counter = countWriteUnits(writer, reader);
      await writer.send(put("replaced", "small"));
      await writer.send(put("new", "small"));
      // 3000 bytes before, a few after: ceil(3 KB) = 3 WRU; a put of a new small item is 1.
      expect(counter.writes.map((write) => [write.sk, write.wru])).toEqual([
        ["replaced", 3],
        ["new", 1],
      ]);
    } finally {
      writer.destroy();
    }
  });
});
