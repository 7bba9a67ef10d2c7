import { randomBytes } from "node:crypto";
import { closedPort } from "../../support/closed-port";
import { describe, expect, test } from "vitest";
import { DynamoDbConnectionStore } from "../../../lambdas/adapters/dynamodb/connections/dynamodb-connection-store";
import { RateLimitSlotsStaleError, StoreUnavailableError, type SyncError } from "../../../lambdas/domain/core/errors";
import type { RateLimiter } from "../../../lambdas/domain/core/ports/rate-limiter";
import type { SourceClient } from "../../../lambdas/domain/core/ports/source-client";
import { AesGcmTokenCipher } from "../../../lambdas/adapters/local/aes-token-cipher";
import { statusOf } from "../../../lambdas/handlers/http/error-status";
import { ServiceBusyError } from "../../../lambdas/domain/onboarding/onboarding-errors";
import { SERVICE_BUSY_DETAIL, TEST_CALL_BUSY_WAITS_MS, testConnection } from "../../../lambdas/domain/onboarding/test-connection";
import { createHttpSourceClient } from "../../../lambdas/adapters/source-http/http-source-client";
import { dynamoDbKeySpace } from "../../../lambdas/adapters/dynamodb/dynamodb-key-space";
import { pipelineRecord } from "../../builders/source-records";
import { storedConnection } from "../../builders/stored-connections";
import { crmSource } from "../../support/crm-source";
import { useTestTable } from "../../support/dynamodb";
import { ManualClock } from "../../support/manual-clock";
import { rejectedWith } from "../../support/rejected-with";
import { useSourceServers } from "../../support/source-servers";

/**
 * Our trouble is ours: the test call retries the service's own busy store
 * and rate limiter (on a manual clock: no real wait), and when they stay busy
 * it says the service was busy, never that the customer's CRM is unreachable.
 */
const table = useTestTable();
const serve = useSourceServers("each");
const cipher = new AesGcmTokenCipher(randomBytes(32));
const ACCOUNT = "acct-test-call";
const TOKEN = "tok-test-call-secret";
const connections = new DynamoDbConnectionStore(table);

/** A connection of ACCOUNT's to `baseUrl`. */
async function connectionTo(id: string, baseUrl: string): Promise<string> {
  const token_ciphertext = await cipher.encrypt(TOKEN, { businessAccountId: ACCOUNT, connectionId: id });
  await connections.put(storedConnection(id, { business_account_id: ACCOUNT, base_url: baseUrl, token_ciphertext }));
  return id;
}

/** A rate limiter (our own port) that is busy `times` times with `busy`, then hands out slots that start now. */
function busyLimiter(times: number, busy: () => SyncError): RateLimiter & { readonly calls: () => number } {
  let calls = 0;
  return {
    calls: () => calls,
    acquire: async () => {
      calls += 1;
      if (calls <= times) throw busy();
      return Date.now();
    },
  };
}


const BUSY = {
  StoreUnavailableError: () => new StoreUnavailableError("ThrottlingException: the table is throttled"),
  RateLimitSlotsStaleError: () => new RateLimitSlotsStaleError("10 rate-limit slots in a row went stale"),
} as const;

describe("the test call retries the service's own busy store within its budget", () => {
  test.each(Object.keys(BUSY) as (keyof typeof BUSY)[])("service.available: busy %s three times, then it works: the CRM is reached and the answer says so", async (name) => {
    const source = await serve(crmSource(() => ({ pipelines: [pipelineRecord({ id: "p1" }), pipelineRecord({ id: "p2" })] }), { token: TOKEN }));
    const id = await connectionTo(`c-busy-then-works-${name}`, source.baseUrl);
    const limiter = busyLimiter(3, BUSY[name]);
    const clock = new ManualClock();

    const result = await testConnection({ connections, keySpace: dynamoDbKeySpace, cipher, limiter, source: createHttpSourceClient(), sleep: clock.sleep }, ACCOUNT, id);

    expect(result).toEqual({ reachable: true, authenticated: true, detail: expect.stringMatching(/^GET \/pipelines answered 200 with 2 pipeline/), pipelines_found: 2 });
    // Three waits of its budget, on the injected clock; one request reached the CRM.
    expect(clock.sleeps).toEqual(TEST_CALL_BUSY_WAITS_MS.slice(0, 3));
    expect(source.requests).toHaveLength(1);
  });

  test.each(Object.keys(BUSY) as (keyof typeof BUSY)[])("service.available: busy (%s) throughout, it says the service was busy and nothing of the CRM: a 503, never reachable false", async (name) => {
    const requests: string[] = [];
    const source: SourceClient = {
      fetchPage: async (_connection, request) => {
        requests.push(request.path);
        throw new Error("no request may reach the source");
      },
    };
    const id = await connectionTo(`c-busy-throughout-${name}`, "http://127.0.0.1:9");
    const limiter = busyLimiter(Infinity, BUSY[name]);
    const clock = new ManualClock();

    const error = await rejectedWith(testConnection({ connections, keySpace: dynamoDbKeySpace, cipher, limiter, source, sleep: clock.sleep }, ACCOUNT, id), ServiceBusyError);

    expect(error.message).toBe(SERVICE_BUSY_DETAIL);
    expect(error.message).toMatch(/^The service was busy and sent no request to your CRM/);
    expect(error.message).not.toMatch(/reach|rate-limit|slot|Error\b/);
    expect(statusOf(error)).toBe(503);
    // The whole budget, then no more: one try after each wait.
    expect(clock.sleeps).toEqual([...TEST_CALL_BUSY_WAITS_MS]);
    expect(limiter.calls()).toBe(TEST_CALL_BUSY_WAITS_MS.length + 1);
    expect(requests).toEqual([]);
  });
});

describe("a source that cannot be reached is still the source's", () => {
  test("source.reachable: a closed port answers reachable false at once, with no retry of ours", async () => {
    const id = await connectionTo("c-closed", `http://127.0.0.1:${await closedPort()}`);
    const clock = new ManualClock();

    const result = await testConnection({ connections, keySpace: dynamoDbKeySpace, cipher, limiter: busyLimiter(0, BUSY.StoreUnavailableError), source: createHttpSourceClient(), sleep: clock.sleep }, ACCOUNT, id);

    expect(result).toEqual({ reachable: false, authenticated: false, detail: "the source could not be reached: connection refused" });
    expect(clock.sleeps).toEqual([]);
  });
});
