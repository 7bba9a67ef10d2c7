import { randomUUID } from "node:crypto";
import { GetItemCommand, PutItemCommand, QueryCommand } from "@aws-sdk/client-dynamodb";
import { describe, expect, test, vi } from "vitest";
import type { StoredConnection } from "../../../../lambdas/domain/core/connection";
import {
  CONNECTION_PARTITION_KEY,
  accountSortKeyPrefix,
  connectionSortKey,
} from "../../../../lambdas/adapters/dynamodb/connections/connection-keys";
import { DynamoDbConnectionStore } from "../../../../lambdas/adapters/dynamodb/connections/dynamodb-connection-store";
import { createTestTable, useTestTable } from "../../../support/dynamodb";

const table = useTestTable();
const store = new DynamoDbConnectionStore(table);


const newAccount = () => `acct-${randomUUID()}`;

function connection(businessAccountId: string, id: string, extra: Partial<StoredConnection> = {}): StoredConnection {
  return {
    id,
    business_account_id: businessAccountId,
    crm_type: "custom",
    base_url: "https://crm.example.com/api",
    rate_limit: 5,
    sync_since: "2026-01-01T00:00:00.000Z",
    created_at: "2026-11-21T16:18:00.000Z",
    updated_at: "2026-11-21T16:18:00.000Z",
    token_ciphertext: `cipher-of-${businessAccountId}-${id}`,
    ...extra,
  };
}

const byId = (a: StoredConnection, b: StoredConnection) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

describe("put and get", () => {
  test("a put connection is read back exactly", async () => {
    const stored = connection(newAccount(), "conn-1");
    await store.put(stored);
    expect(await store.get(stored.business_account_id, "conn-1")).toEqual(stored);
  });

  test("put replaces the connection with the same account and id", async () => {
    const account = newAccount();
    await store.put(connection(account, "conn-1"));
    const replaced = connection(account, "conn-1", { rate_limit: 12, base_url: "https://other.example.com", updated_at: "2026-11-22T00:00:00.000Z" });
    await store.put(replaced);
    expect(await store.get(account, "conn-1")).toEqual(replaced);
    expect(await store.listByAccount(account)).toEqual([replaced]);
  });

  test("get is strongly consistent unless the caller asks for an eventually consistent read (only the page task does)", async () => {
    const stored = connection(newAccount(), "conn-consistency");
    await store.put(stored);
    const send = vi.spyOn(table.client, "send");
    try {
      expect(await store.get(stored.business_account_id, stored.id)).toEqual(stored);
      expect(await store.get(stored.business_account_id, stored.id, { consistency: "strong" })).toEqual(stored);
      expect(await store.get(stored.business_account_id, stored.id, { consistency: "eventual" })).toEqual(stored);
      const reads = send.mock.calls.flatMap(([command]) => (command instanceof GetItemCommand ? [command.input.ConsistentRead] : []));
      expect(reads).toEqual([true, true, false]);
    } finally {
      send.mockRestore();
    }
  });

  test("an unknown connection id is null", async () => {
    expect(await store.get(newAccount(), "nope")).toBeNull();
  });

  test("fields are stored as plain attributes (rate_limit a number), not a JSON blob", async () => {
    const stored = connection(newAccount(), "conn-plain", { rate_limit: 7 });
    await store.put(stored);
    const out = await table.client.send(
      new GetItemCommand({
        TableName: table.tableName,
        Key: { pk: { S: CONNECTION_PARTITION_KEY }, sk: { S: connectionSortKey(stored.business_account_id, stored.id) } },
      }),
    );
    expect(out.Item).toMatchObject({
      id: { S: "conn-plain" },
      business_account_id: { S: stored.business_account_id },
      crm_type: { S: "custom" },
      base_url: { S: stored.base_url },
      rate_limit: { N: "7" },
      sync_since: { S: stored.sync_since },
      token_ciphertext: { S: stored.token_ciphertext },
    });
  });

  test("a non-integer rate_limit is refused before writing", async () => {
    const account = newAccount();
    await expect(store.put(connection(account, "c", { rate_limit: 0 }))).rejects.toThrow(RangeError);
    await expect(store.put(connection(account, "c", { rate_limit: 1.5 }))).rejects.toThrow(RangeError);
    expect(await store.get(account, "c")).toBeNull();
  });
});

describe("tenant isolation", () => {
  test("the same connection id under two accounts is two connections", async () => {
    const [a, b] = [newAccount(), newAccount()];
    const inA = connection(a, "shared-id", { base_url: "https://a.example.com" });
    const inB = connection(b, "shared-id", { base_url: "https://b.example.com" });
    await store.put(inA);
    await store.put(inB);
    expect(await store.get(a, "shared-id")).toEqual(inA);
    expect(await store.get(b, "shared-id")).toEqual(inB);
  });

  test("get with the wrong account is null, exactly like an unknown id", async () => {
    const [owner, other] = [newAccount(), newAccount()];
    await store.put(connection(owner, "conn-private"));
    expect(await store.get(other, "conn-private")).toBeNull();
  });

  test("delete with the wrong account leaves the owner's connection", async () => {
    const [owner, other] = [newAccount(), newAccount()];
    const stored = connection(owner, "conn-keep");
    await store.put(stored);
    await store.delete(other, "conn-keep");
    expect(await store.get(owner, "conn-keep")).toEqual(stored);
  });

  test("an account id containing '#' never sees another account's connections", async () => {
    const base = newAccount();
    const plain = connection(base, "x#y");
    const hashed = connection(`${base}#x`, "y");
    const percent = connection(`${base}%23x`, "y");
    for (const c of [plain, hashed, percent]) await store.put(c);

    expect(await store.listByAccount(base)).toEqual([plain]);
    expect(await store.listByAccount(`${base}#x`)).toEqual([hashed]);
    expect(await store.listByAccount(`${base}%23x`)).toEqual([percent]);
    expect(await store.get(base, "x#y")).toEqual(plain);
    expect(await store.get(`${base}#x`, "y")).toEqual(hashed);
    expect(await store.get(`${base}#x`, "x#y")).toBeNull();
  });

  test("no two distinct (account, connection) pairs share a sort key, and an account prefix matches only its own keys", () => {
    const pairs: [string, string][] = [
      ["a", "b#c"],
      ["a#b", "c"],
      ["a%23b", "c"],
      ["a%b", "c"],
      ["a%25b", "c"],
      ["a", "%23b#c"],
    ];
    const keys = pairs.map(([account, id]) => connectionSortKey(account, id));
    expect(new Set(keys).size).toBe(pairs.length);
    for (const [account] of pairs) {
      pairs.forEach(([owner], index) => {
        expect(keys[index]!.startsWith(accountSortKeyPrefix(account))).toBe(owner === account);
      });
    }
  });

  test("empty account or connection ids are refused", async () => {
    await expect(store.get("", "c")).rejects.toThrow(TypeError);
    await expect(store.get("a", "")).rejects.toThrow(TypeError);
    await expect(store.listByAccount("")).rejects.toThrow(TypeError);
  });
});

describe("listing", () => {
  test("listByAccount returns every connection of the account and no other", async () => {
    const [a, b] = [newAccount(), newAccount()];
    const ofA = ["c1", "c2", "c3"].map((id) => connection(a, id));
    for (const c of [...ofA, connection(b, "c1"), connection(b, "c9")]) await store.put(c);
    expect((await store.listByAccount(a)).sort(byId)).toEqual(ofA);
  });

  test("listByAccount of an account without connections is empty", async () => {
    expect(await store.listByAccount(newAccount())).toEqual([]);
  });

  test("delete removes the connection from get and from both lists", async () => {
    const account = newAccount();
    await store.put(connection(account, "gone"));
    await store.put(connection(account, "kept"));
    await store.delete(account, "gone");
    expect(await store.get(account, "gone")).toBeNull();
    expect((await store.listByAccount(account)).map((c) => c.id)).toEqual(["kept"]);
    expect((await store.listAll()).some((c) => c.business_account_id === account && c.id === "gone")).toBe(false);
  });

  test("delete of an unknown connection is a no-op", async () => {
    await expect(store.delete(newAccount(), "never-there")).resolves.toBeUndefined();
  });
});

describe("listAll", () => {
  test("listAll returns the connections of every account", async () => {
    const own = await isolatedStore();
    const [a, b, c] = [newAccount(), newAccount(), newAccount()];
    const all = [connection(a, "1"), connection(a, "2"), connection(b, "1"), connection(c, "x")];
    for (const stored of all) await own.put(stored);
    const listed = await own.listAll();
    const keyOf = (s: StoredConnection) => `${s.business_account_id}/${s.id}`;
    expect(listed.map(keyOf).sort()).toEqual(all.map(keyOf).sort());
  });

  test("listAll reads every page of the partition (LastEvaluatedKey loop)", async () => {
    const own = await isolatedStore();
    const account = newAccount();
    // ~2.5 MB in all: more than one 1 MB query response.
    const bigCipher = "x".repeat(350_000);
    const ids = Array.from({ length: 8 }, (_, index) => `big-${index}`);
    for (const id of ids) await own.put(connection(account, id, { token_ciphertext: bigCipher }));
    const send = vi.spyOn(table.client, "send");
    const listed = await own.listAll();
    const queries = send.mock.calls.filter(([command]) => command instanceof QueryCommand).length;
    send.mockRestore();
    expect(queries).toBeGreaterThan(1);
    expect(listed.map((c) => c.id).sort()).toEqual(ids);
    expect((await own.listByAccount(account)).length).toBe(ids.length);
  });

  test("an item that is not a connection is refused on read", async () => {
    const own = await isolatedStore();
    await own.put(connection("acct", "ok"));
    await table.client.send(
      new PutItemCommand({
        TableName: own.tableNameForTest,
        Item: { pk: { S: CONNECTION_PARTITION_KEY }, sk: { S: connectionSortKey("acct", "broken") }, id: { S: "broken" } },
      }),
    );
    await expect(own.listAll()).rejects.toMatchObject({ name: "CorruptConnectionItemError" });
  });
});

/** A store on its own table, for tests that read the whole partition. */
async function isolatedStore(): Promise<DynamoDbConnectionStore & { tableNameForTest: string }> {
  const ownTable = await createTestTable(table.client);
  return Object.assign(new DynamoDbConnectionStore({ client: table.client, tableName: ownTable }), { tableNameForTest: ownTable });
}

/**
 * The item format is the one the hand-written toItem/fromItem wrote before the
 * store converted through util-dynamodb and the domain's schema: items already
 * stored read back, and new items are written exactly alike.
 */
describe("stored item format", () => {
  const OLD_FORMAT_ITEM = (account: string, id: string) => ({
    pk: { S: CONNECTION_PARTITION_KEY },
    sk: { S: connectionSortKey(account, id) },
    id: { S: id },
    business_account_id: { S: account },
    crm_type: { S: "custom" },
    base_url: { S: "https://crm.example.com/api" },
    rate_limit: { N: "5" },
    sync_since: { S: "2026-01-01T00:00:00.000Z" },
    created_at: { S: "2026-11-21T16:18:00.000Z" },
    updated_at: { S: "2026-11-21T16:18:00.000Z" },
    token_ciphertext: { S: `cipher-of-${account}-${id}` },
  });

  async function storedItem(account: string, id: string) {
    const out = await table.client.send(
      new GetItemCommand({ TableName: table.tableName, Key: { pk: { S: CONNECTION_PARTITION_KEY }, sk: { S: connectionSortKey(account, id) } }, ConsistentRead: true }),
    );
    return out.Item;
  }

  test("put writes exactly the attributes of the old format: paused only when true, nothing else", async () => {
    const account = newAccount();
    await store.put(connection(account, "fmt-1"));
    expect(await storedItem(account, "fmt-1")).toEqual(OLD_FORMAT_ITEM(account, "fmt-1"));
    await store.put(connection(account, "fmt-2", { paused: true }));
    expect(await storedItem(account, "fmt-2")).toEqual({ ...OLD_FORMAT_ITEM(account, "fmt-2"), paused: { BOOL: true } });
    await store.put(connection(account, "fmt-3", { paused: false }));
    expect(await storedItem(account, "fmt-3")).toEqual(OLD_FORMAT_ITEM(account, "fmt-3"));
    // A field that is not the StoredConnection's is not written.
    await store.put({ ...connection(account, "fmt-4"), schedule: "1h" } as StoredConnection);
    expect(await storedItem(account, "fmt-4")).toEqual(OLD_FORMAT_ITEM(account, "fmt-4"));
  });

  test("an item written in the old format, with the TTL attribute a delete leaves, reads back as the connection", async () => {
    const account = newAccount();
    await table.client.send(
      new PutItemCommand({ TableName: table.tableName, Item: { ...OLD_FORMAT_ITEM(account, "old-1"), paused: { BOOL: true }, expires_at: { N: "1800000000" } } }),
    );
    expect(await store.get(account, "old-1")).toEqual(connection(account, "old-1", { paused: true }));
    await table.client.send(new PutItemCommand({ TableName: table.tableName, Item: OLD_FORMAT_ITEM(account, "old-2") }));
    const read = await store.get(account, "old-2");
    expect(read).toEqual(connection(account, "old-2"));
    expect(read).not.toHaveProperty("paused");
  });

  test("an item whose rate_limit is not an integer from 1 to 1000 is refused on read, naming the field", async () => {
    const own = await isolatedStore();
    await table.client.send(new PutItemCommand({ TableName: own.tableNameForTest, Item: { ...OLD_FORMAT_ITEM("acct", "bad"), rate_limit: { S: "5" } } }));
    await expect(own.get("acct", "bad")).rejects.toMatchObject({ name: "CorruptConnectionItemError", message: expect.stringContaining("rate_limit") });
  });
});
