import { randomBytes } from "node:crypto";
import { beforeAll, describe, expect, test } from "vitest";
import { DynamoDbConnectionStore } from "../../../lambdas/adapters/dynamodb/connections/dynamodb-connection-store";
import type { RateLimiter } from "../../../lambdas/domain/core/ports/rate-limiter";
import type { SourceClient } from "../../../lambdas/domain/core/ports/source-client";
import { AesGcmTokenCipher } from "../../../lambdas/adapters/local/aes-token-cipher";
import { testConnection } from "../../../lambdas/domain/onboarding/test-connection";
import { storedConnection } from "../../builders/stored-connections";
import { useTestTable } from "../../support/dynamodb";
import { dynamoDbKeySpace } from "../../../lambdas/adapters/dynamodb/dynamodb-key-space";

const table = useTestTable();
const cipher = new AesGcmTokenCipher(randomBytes(32));
const ACCOUNT = "acct-test-call";
const TOKEN = "tok-test-call-secret";
let connections: DynamoDbConnectionStore;

beforeAll(async () => {
  connections = new DynamoDbConnectionStore(table);
  const token_ciphertext = await cipher.encrypt(TOKEN, { businessAccountId: ACCOUNT, connectionId: "c-busy" });
  await connections.put(storedConnection("c-busy", { business_account_id: ACCOUNT, token_ciphertext }));
});

describe("the test call when the service cannot take a rate-limit slot", () => {
  test("a test call that sent no request (RateLimitSlotsStaleError) says the service was busy, not that the source answered badly", async () => {
    const requests: string[] = [];
    // The limiter is our own port: every slot it hands out started at the epoch, so it is late whatever the time.
    const limiter: RateLimiter = { acquire: async () => 0 };
    const source: SourceClient = {
      fetchPage: async (_connection, request) => {
        requests.push(request.path);
        throw new Error("no request may reach the source");
      },
    };

    const result = await testConnection({ connections, keySpace: dynamoDbKeySpace, cipher, limiter, source }, ACCOUNT, "c-busy");

    expect(requests).toEqual([]);
    expect(result).toEqual({
      reachable: false,
      authenticated: false,
      detail: expect.stringMatching(/^the service is busy and sent no request to the source; try the test again: /),
    });
    expect(result.detail).not.toContain("not a valid page");
    expect(result.detail).not.toContain(TOKEN.slice(4));
  });
});
