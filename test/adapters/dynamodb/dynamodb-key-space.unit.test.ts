import { describe, expect, it } from "vitest";
import { dynamoDbKeySpace } from "../../../lambdas/adapters/dynamodb/dynamodb-key-space";
import { connectionSortKey } from "../../../lambdas/adapters/dynamodb/connections/connection-keys";
import { SORT_KEY_MAX_BYTES } from "../../../lambdas/adapters/dynamodb/table/key-limits";

describe("a path id is storable only when its key fits DynamoDB's 1024-byte sort key", () => {
  it("counts UTF-8 bytes, not characters: 1024 bytes fit, 1025 do not", () => {
    expect(dynamoDbKeySpace.isStorableId("a".repeat(SORT_KEY_MAX_BYTES))).toBe(true);
    expect(dynamoDbKeySpace.isStorableId("a".repeat(SORT_KEY_MAX_BYTES + 1))).toBe(false);
    // "é" is 2 bytes, "😀" 4: 512 and 256 of them are 1024 bytes, one more is over.
    expect(dynamoDbKeySpace.isStorableId("é".repeat(512))).toBe(true);
    expect(dynamoDbKeySpace.isStorableId("é".repeat(513))).toBe(false);
    expect(dynamoDbKeySpace.isStorableId("😀".repeat(256))).toBe(true);
    expect(dynamoDbKeySpace.isStorableId(`${"😀".repeat(255)}abcde`)).toBe(false);
  });

  it("an empty id names nothing", () => {
    expect(dynamoDbKeySpace.isStorableId("")).toBe(false);
    expect(dynamoDbKeySpace.isStorableConnectionId("acct", "")).toBe(false);
  });

  it("a connection id shares its key with the escaped workspace: storable exactly when the store can build its key", () => {
    // "a#b" escapes to "a%23b", then "#": 6 bytes of the 1024 are the workspace's.
    const longest = "c".repeat(SORT_KEY_MAX_BYTES - 6);
    expect(dynamoDbKeySpace.isStorableConnectionId("a#b", longest)).toBe(true);
    expect(() => connectionSortKey("a#b", longest)).not.toThrow();
    expect(dynamoDbKeySpace.isStorableConnectionId("a#b", `${longest}c`)).toBe(false);
    expect(() => connectionSortKey("a#b", `${longest}c`)).toThrow(TypeError);
  });
});
