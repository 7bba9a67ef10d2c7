import { ProvisionedThroughputExceededException } from "@aws-sdk/client-dynamodb";
import type { Context } from "aws-lambda";
import { describe, expect, test } from "vitest";
import type { ApiEvent } from "../../../lambdas/handlers/http/api-handler";
import { CONNECTIONS_PATH, useOwnerApi, type ApiResponse } from "../../support/api-harness";

/**
 * The API's access log line (message "api request") records the status the
 * client got, for successes and for every error status: lines are captured
 * through the logger the service is built with.
 */

const BASE_URL = "http://127.0.0.1:9/api";
const SOURCE_TOKEN = "src-access-log-1f9d";

const env = useOwnerApi("acct-access-log");

const accessLines = () => env.api.logger.lines.filter((line) => line["message"] === "api request");

/** Sends one request and returns its response with the one access log line it produced. */
async function withAccessLine(send: () => Promise<ApiResponse>) {
  const before = accessLines().length;
  const response = await send();
  const lines = accessLines().slice(before);
  expect(lines).toHaveLength(1);
  return { response, line: lines[0] as Record<string, unknown> };
}

describe("the access log line's status is the response's status", () => {
  let connectionId: string;

  test("201: a connection created", async () => {
    const { response, line } = await withAccessLine(() =>
      env.api.request("POST", CONNECTIONS_PATH, { token: env.owner, body: { base_url: BASE_URL, token: SOURCE_TOKEN } }),
    );
    expect(response.status).toBe(201);
    expect(line).toMatchObject({ status: 201, route: `POST ${CONNECTIONS_PATH}`, business_account_id: "acct-access-log" });
    connectionId = response.body.id;
  });

  test("200: the list", async () => {
    const { response, line } = await withAccessLine(() => env.api.request("GET", CONNECTIONS_PATH, { token: env.owner }));
    expect(response.status).toBe(200);
    expect(line["status"]).toBe(200);
  });

  test("400: a body that is not JSON", async () => {
    const { response, line } = await withAccessLine(() => env.api.request("POST", CONNECTIONS_PATH, { token: env.owner, rawBody: "{not json" }));
    expect(response.status).toBe(400);
    expect(line["status"]).toBe(400);
  });

  test("403: a ROP session", async () => {
    const rop = await env.api.token("acct-access-log", "ROP");
    const { response, line } = await withAccessLine(() => env.api.request("GET", CONNECTIONS_PATH, { token: rop }));
    expect(response.status).toBe(403);
    expect(line["status"]).toBe(403);
  });

  test("404: an unknown connection id", async () => {
    const { response, line } = await withAccessLine(() => env.api.request("GET", `${CONNECTIONS_PATH}/no-such-id`, { token: env.owner }));
    expect(response.status).toBe(404);
    expect(line["status"]).toBe(404);
  });

  test("422: a field that breaks a rule", async () => {
    const { response, line } = await withAccessLine(() =>
      env.api.request("PATCH", `${CONNECTIONS_PATH}/${connectionId}`, { token: env.owner, body: { rate_limit: 0 } }),
    );
    expect(response.status).toBe(422);
    expect(line["status"]).toBe(422);
  });

  test("503: DynamoDB throttled", async () => {
    env.api.failNextDynamoDbCommand(new ProvisionedThroughputExceededException({ message: "throughput exceeded", $metadata: {} }));
    const { response, line } = await withAccessLine(() => env.api.request("GET", `${CONNECTIONS_PATH}/${connectionId}`, { token: env.owner }));
    expect(response.status).toBe(503);
    expect(line["status"]).toBe(503);
  });

  test("204: a connection deleted", async () => {
    const { response, line } = await withAccessLine(() => env.api.request("DELETE", `${CONNECTIONS_PATH}/${connectionId}`, { token: env.owner }));
    expect(response.status).toBe(204);
    expect(line["status"]).toBe(204);
  });

  test("401: a session without valid claims reaching the handler (the local server, like API Gateway's authorizer, answers a bad token before any Lambda runs)", async () => {
    const event = {
      version: "2.0",
      routeKey: `GET ${CONNECTIONS_PATH}`,
      rawPath: CONNECTIONS_PATH,
      rawQueryString: "",
      headers: {},
      requestContext: { requestId: "r-401", routeKey: `GET ${CONNECTIONS_PATH}`, authorizer: { jwt: { claims: { sub: "u" }, scopes: [] } } },
      isBase64Encoded: false,
    } as unknown as ApiEvent;
    const before = accessLines().length;
    const result = await env.api.apiHandler(event, { awsRequestId: "r-401" } as Context);
    expect(result.statusCode).toBe(401);
    expect(accessLines().slice(before).map((line) => line["status"])).toEqual([401]);
  });

  test("no 4xx or 503 above was logged as an unexpected error", () => {
    expect(env.api.logger.lines.filter((line) => line["level"] === "error")).toEqual([]);
  });
});
