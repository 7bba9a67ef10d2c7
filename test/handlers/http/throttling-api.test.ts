import {
  DynamoDBServiceException,
  InternalServerError,
  ProvisionedThroughputExceededException,
  RequestLimitExceeded,
  ThrottlingException,
  TransactionCanceledException,
  TransactionConflictException,
} from "@aws-sdk/client-dynamodb";
import { beforeAll, describe, expect, test } from "vitest";
import { RETRY_AFTER_SECONDS } from "../../../lambdas/handlers/http/error-status";
import { SERVICE_BUSY_DETAIL, TEST_CALL_BUSY_WAITS_MS } from "../../../lambdas/domain/onboarding/test-connection";
import { ManualClock } from "../../support/manual-clock";
import { CONNECTIONS_PATH, useOwnerApi } from "../../support/api-harness";

/**
 * DynamoDB busy inside the onboarding API (throttled, a conflicting
 * transaction, a 5xx) is a 503 with Retry-After and a JSON error body, never a
 * 500. The failure is the SDK's own exception, thrown for one call at the
 * DynamoDB client's boundary (harness.failNextDynamoDbCommand); everything
 * else is DynamoDB Local.
 */

const BASE_URL = "http://127.0.0.1:9/api";
const SOURCE_TOKEN = "src-throttling-7a42";
const $metadata = { httpStatusCode: 400 };

/** The test call's waits before it tries its busy store again: on this clock, never the wall clock. */
const clock = new ManualClock();
const env = useOwnerApi("acct-throttling", { sleep: clock.sleep });
let connectionId: string;

beforeAll(async () => {
  const created = await env.api.request("POST", CONNECTIONS_PATH, { token: env.owner, body: { base_url: BASE_URL, token: SOURCE_TOKEN } });
  expect(created.status).toBe(201);
  connectionId = created.body.id;
});

/** The SDK's exceptions for "DynamoDB is busy", as its deserializer builds them. */
const BUSY: ReadonlyArray<readonly [string, () => Error]> = [
  ["ProvisionedThroughputExceededException", () => new ProvisionedThroughputExceededException({ message: "throughput exceeded", $metadata })],
  ["ThrottlingException", () => new ThrottlingException({ message: "rate exceeded", $metadata })],
  ["RequestLimitExceeded", () => new RequestLimitExceeded({ message: "account limit", $metadata })],
  ["TransactionConflictException", () => new TransactionConflictException({ message: "conflict", $metadata })],
  [
    "TransactionCanceledException for a conflict",
    () => new TransactionCanceledException({ message: "cancelled", $metadata, CancellationReasons: [{ Code: "None" }, { Code: "TransactionConflict" }] }),
  ],
  ["InternalServerError (500 from DynamoDB)", () => new InternalServerError({ message: "internal", $metadata: { httpStatusCode: 500 } })],
  [
    "an unmodelled 503 from DynamoDB",
    () => new DynamoDBServiceException({ name: "ServiceUnavailable", $fault: "server", message: "unavailable", $metadata: { httpStatusCode: 503 } }),
  ],
];

function expectBusy(response: { status: number; headers: Headers; text: string }): void {
  expect(response.status, response.text).toBe(503);
  expect(response.headers.get("retry-after")).toBe(String(RETRY_AFTER_SECONDS));
  expect(response.headers.get("content-type")).toBe("application/json");
  expect(JSON.parse(response.text)).toEqual({ error: { code: "unavailable", message: expect.stringContaining("try again") } });
}

async function send(method: string, path: string, body?: unknown) {
  const response = await fetch(`${env.api.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${env.owner}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

describe("DynamoDB throttling inside the onboarding API is a 503 with Retry-After, never a 500", () => {
  test("Retry-After is 5 seconds (docs/onboarding-api.md)", () => {
    expect(RETRY_AFTER_SECONDS).toBe(5);
  });

  for (const [what, error] of BUSY) {
    test(`${what}: 503, Retry-After, a JSON error body; the same request then succeeds`, async () => {
      const injected = env.api.failNextDynamoDbCommand(error());
      expectBusy(await send("GET", `${CONNECTIONS_PATH}/${connectionId}`));
      await injected.thrown;
      expect((await send("GET", `${CONNECTIONS_PATH}/${connectionId}`)).status).toBe(200);
    });
  }

  const ROUTES: ReadonlyArray<readonly [string, string, () => string, unknown?]> = [
    ["create", "POST", () => CONNECTIONS_PATH, { base_url: BASE_URL, token: SOURCE_TOKEN }],
    ["list", "GET", () => CONNECTIONS_PATH],
    ["get", "GET", () => `${CONNECTIONS_PATH}/${connectionId}`],
    ["patch", "PATCH", () => `${CONNECTIONS_PATH}/${connectionId}`, { rate_limit: 7 }],
    ["delete", "DELETE", () => `${CONNECTIONS_PATH}/${connectionId}`],
    ["test", "POST", () => `${CONNECTIONS_PATH}/${connectionId}/test`],
    ["trigger a sync", "POST", () => `${CONNECTIONS_PATH}/${connectionId}/syncs`],
    ["list runs", "GET", () => `${CONNECTIONS_PATH}/${connectionId}/syncs`],
    ["get a run", "GET", () => `${CONNECTIONS_PATH}/${connectionId}/syncs/20260101T000000000Z-abcdef`],
    ["list records", "GET", () => `${CONNECTIONS_PATH}/${connectionId}/records/leads`],
  ];
  for (const [what, method, path, body] of ROUTES) {
    test(`${what}: throttled by DynamoDB is a 503 with Retry-After`, async () => {
      env.api.failNextDynamoDbCommand(new ProvisionedThroughputExceededException({ message: "throughput exceeded", $metadata }));
      expectBusy(await send(method, path(), body));
    });
  }

  test("the connection is untouched by the throttled PATCH and DELETE", async () => {
    const after = await send("GET", `${CONNECTIONS_PATH}/${connectionId}`);
    expect(after.status).toBe(200);
    expect(JSON.parse(after.text).rate_limit).toBe(5);
  });

  test("each 503 is logged as a warning naming the exception, with no message text; none as an unexpected error", () => {
    const busy = env.api.logger.lines.filter((line) => line["message"] === "dependency busy");
    expect(busy.length).toBe(BUSY.length + ROUTES.length);
    expect(busy.every((line) => line["level"] === "warn" && typeof line["error"] === "string")).toBe(true);
    expect(env.api.logger.lines.filter((line) => line["level"] === "error")).toEqual([]);
  });
});

describe("a busy store of ours during the test call is retried, then the API's 503: never a result about the source", () => {
  const throttled = () => new ProvisionedThroughputExceededException({ message: "throughput exceeded", $metadata });

  test("service.available: the rate limiter's table throttled once (its PutItem) is tried again, and the answer is the source's", async () => {
    clock.sleeps.length = 0;
    const injected = env.api.failNextDynamoDbCommand(throttled(), "PutItemCommand");
    const response = await send("POST", `${CONNECTIONS_PATH}/${connectionId}/test`);
    await injected.thrown;
    expect(response.status).toBe(200);
    // Nothing answers at port 9: that is the source's answer, after one wait of ours.
    expect(JSON.parse(response.text)).toMatchObject({ reachable: false, detail: expect.stringMatching(/^the source could not be reached: /) });
    expect(clock.sleeps).toEqual([TEST_CALL_BUSY_WAITS_MS[0]]);
  });

  test("service.available: throttled through every retry, it is a 503 with Retry-After saying the service was busy, never reachable/authenticated answers", async () => {
    clock.sleeps.length = 0;
    const injected = TEST_CALL_BUSY_WAITS_MS.map(() => env.api.failNextDynamoDbCommand(throttled(), "PutItemCommand"));
    injected.push(env.api.failNextDynamoDbCommand(throttled(), "PutItemCommand"));
    const response = await send("POST", `${CONNECTIONS_PATH}/${connectionId}/test`);
    await Promise.all(injected.map((failure) => failure.thrown));
    expect(response.status, response.text).toBe(503);
    expect(response.headers.get("retry-after")).toBe(String(RETRY_AFTER_SECONDS));
    expect(JSON.parse(response.text)).toEqual({ error: { code: "unavailable", message: SERVICE_BUSY_DETAIL } });
    expect(clock.sleeps).toEqual([...TEST_CALL_BUSY_WAITS_MS]);
  });
});
