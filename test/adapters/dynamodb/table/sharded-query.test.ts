import { randomUUID } from "node:crypto";
import { BatchWriteItemCommand } from "@aws-sdk/client-dynamodb";
import { describe, expect, test } from "vitest";
import { mergeShardQueries } from "../../../../lambdas/adapters/dynamodb/table/sharded-query";
import { testDynamoDbClient, useTestTable } from "../../../support/dynamodb";

const table = useTestTable();

/** Heads put straight into the given partitions: sk = id, newest = a fixed value + id (the index's sort value form). */
async function putHeads(byPartition: Record<string, readonly string[]>): Promise<void> {
  const requests = Object.entries(byPartition).flatMap(([pk, ids]) =>
    ids.map((id) => ({ PutRequest: { Item: { pk: { S: pk }, sk: { S: id }, newest: { S: `2026-01-01T00:00:00.000Z#${id}` }, doc: { S: "{}" } } } })),
  );
  for (let start = 0; start < requests.length; start += 25) {
    await table.client.send(new BatchWriteItemCommand({ RequestItems: { [table.tableName]: requests.slice(start, start + 25) } }));
  }
}

describe("mergeShardQueries: one ordered list out of sorted shards", () => {
  test("a shard holding most of the records is read again (twice the limit each time) until the merge has its count, in order", async () => {
    const run = randomUUID();
    const shards = ["a", "b", "c", "d"].map((name) => `SHARDTEST#${run}#${name}`);
    const ids = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${String(i).padStart(3, "0")}`);
    const all = { [shards[0]!]: ids("k", 90), [shards[1]!]: ["a1", "z1"], [shards[2]!]: ["m1"], [shards[3]!]: [] };
    await putHeads(all);
    const sorted = Object.values(all).flat().sort();

    const client = testDynamoDbClient();
    const limits: number[] = [];
    client.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName === "QueryCommand") limits.push((args.input as { Limit: number }).Limit);
        return next(args);
      },
      { step: "initialize" },
    );
    const first = await mergeShardQueries({ client, tableName: table.tableName, partitionKeys: shards, order: "key", count: 41 });
    expect(first.map((item) => item["sk"]?.S)).toEqual(sorted.slice(0, 41));
    // Share of 41 over 4 shards is 12 (11 + 1); the hot shard is then read with 24 and 48 (capped at what is still wanted + 1).
    expect(limits.slice(0, 4)).toEqual([12, 12, 12, 12]);
    expect(limits.length).toBeLessThanOrEqual(4 + 3);

    const after = await mergeShardQueries({ client, tableName: table.tableName, partitionKeys: shards, order: "key", count: 1000, after: "k050" });
    expect(after.map((item) => item["sk"]?.S)).toEqual(sorted.filter((id) => id > "k050"));

    const newest = await mergeShardQueries({ client, tableName: table.tableName, partitionKeys: shards, order: "newest", count: 5 });
    expect(newest.map((item) => item["sk"]?.S)).toEqual([...sorted].reverse().slice(0, 5));
    client.destroy();
  });

  test("a collection of one shard (a small full list) is read with one Query per list page, in order, from its cursor", async () => {
    const pk = `SHARDTEST#${randomUUID()}#00`;
    const ids = Array.from({ length: 30 }, (_, i) => `u${String(i).padStart(2, "0")}`);
    await putHeads({ [pk]: ids });
    const client = testDynamoDbClient();
    let queries = 0;
    client.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName === "QueryCommand") queries += 1;
        return next(args);
      },
      { step: "initialize" },
    );
    const first = await mergeShardQueries({ client, tableName: table.tableName, partitionKeys: [pk], order: "key", count: 11 });
    expect(first.map((item) => item["sk"]?.S)).toEqual(ids.slice(0, 11));
    const next = await mergeShardQueries({ client, tableName: table.tableName, partitionKeys: [pk], order: "key", count: 11, after: "u10" });
    expect(next.map((item) => item["sk"]?.S)).toEqual(ids.slice(11, 22));
    const newest = await mergeShardQueries({ client, tableName: table.tableName, partitionKeys: [pk], order: "newest", count: 11 });
    expect(newest.map((item) => item["sk"]?.S)).toEqual([...ids].reverse().slice(0, 11));
    expect(queries).toBe(3);
    client.destroy();
  });
});
