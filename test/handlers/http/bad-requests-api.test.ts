import { request as httpRequest, Agent } from "node:http";
import { beforeAll, describe, expect, test } from "vitest";
import { MAX_REQUEST_BODY_BYTES } from "../../../lambdas/runtimes/local/api-gateway-server";
import { MAX_BASE_URL_LENGTH, MAX_TOKEN_LENGTH } from "../../../lambdas/domain/onboarding/connection-input";
import { CONNECTIONS_PATH, useOwnerApi, type ApiResponse } from "../../support/api-harness";

/**
 * A client's mistake is a 4xx, never a 5xx: ids too long to be keys, fields
 * too long to store, malformed percent-escapes, and odd requests of every kind.
 * No source is needed: the base_url below is never called.
 */

const BASE_URL = "http://127.0.0.1:9/api";
const SOURCE_TOKEN = "src-bad-requests-5e1c";
const ACCOUNT = "acct-bad-requests";

const env = useOwnerApi(ACCOUNT);
let connectionId: string;

beforeAll(async () => {
  const created = await env.api.request("POST", CONNECTIONS_PATH, { token: env.owner, body: { base_url: BASE_URL, token: SOURCE_TOKEN } });
  expect(created.status).toBe(201);
  connectionId = created.body.id;
});

const utf8Bytes = (text: string) => Buffer.byteLength(text, "utf8");
/** The account's part of a connection's sort key: `<account>#` (no `%` or `#` to escape in ACCOUNT). */
const ACCOUNT_KEY_PREFIX_BYTES = utf8Bytes(`${ACCOUNT}#`);
/** DynamoDB's sort key limit; written out here so the test does not trust the code's constant. */
const SORT_KEY_LIMIT = 1024;

/** Every route that takes an id, as [what, method, path, body]. `{id}` and `{runId}` are filled in per case. */
const ID_ROUTES: ReadonlyArray<readonly [string, string, string, unknown?]> = [
  ["GET connection", "GET", `${CONNECTIONS_PATH}/{id}`],
  ["PATCH connection", "PATCH", `${CONNECTIONS_PATH}/{id}`, { rate_limit: 3 }],
  ["DELETE connection", "DELETE", `${CONNECTIONS_PATH}/{id}`],
  ["POST test", "POST", `${CONNECTIONS_PATH}/{id}/test`],
  ["POST syncs", "POST", `${CONNECTIONS_PATH}/{id}/syncs`],
  ["GET syncs", "GET", `${CONNECTIONS_PATH}/{id}/syncs`],
  ["GET one sync", "GET", `${CONNECTIONS_PATH}/{id}/syncs/{runId}`],
  ["GET records", "GET", `${CONNECTIONS_PATH}/{id}/records/leads`],
];

function fill(path: string, ids: { id: string; runId: string }): string {
  return path.replace("{id}", encodeURIComponent(ids.id)).replace("{runId}", encodeURIComponent(ids.runId));
}

/** The body an unknown id gets, with the unknown id replaced by `id`: what an over-long id must get too. */
function expectNotFoundLikeUnknown(response: ApiResponse, unknown: ApiResponse, unknownId: string, id: string): void {
  expect(unknown.status).toBe(404);
  expect(response.status, response.text.slice(0, 300)).toBe(404);
  expect(response.body).toEqual(JSON.parse(unknown.text.replace(unknownId, id)));
}

describe("an id too long to be a DynamoDB key answers 404 exactly like an unknown id, on every route that takes one", () => {
  const OVER_LONG_CONNECTION_IDS: ReadonlyArray<readonly [string, string]> = [
    ["1025 ASCII bytes", "c".repeat(SORT_KEY_LIMIT + 1)],
    ["513 two-byte characters (1026 bytes, under 1024 characters)", "é".repeat(513)],
    ["under 1024 bytes, but over it with the workspace's part of the key", "k".repeat(SORT_KEY_LIMIT - ACCOUNT_KEY_PREFIX_BYTES + 1)],
    ["8 KB", "x".repeat(8_000)],
  ];

  for (const [what, method, path, body] of ID_ROUTES) {
    for (const [size, longId] of OVER_LONG_CONNECTION_IDS) {
      test(`${what}: a connection id of ${size} is a 404 like an unknown id`, async () => {
        const unknownId = "0a7f1f5e-0000-4000-8000-unknownid000";
        const unknown = await env.api.request(method, fill(path, { id: unknownId, runId: "r1" }), { token: env.owner, body });
        const response = await env.api.request(method, fill(path, { id: longId, runId: "r1" }), { token: env.owner, body });
        expectNotFoundLikeUnknown(response, unknown, unknownId, longId);
      });
    }
  }

  test("GET one sync: a run id of 1025 bytes on a real connection is a 404 like an unknown run id", async () => {
    const path = `${CONNECTIONS_PATH}/${connectionId}/syncs/`;
    const unknown = await env.api.request("GET", `${path}20990101T000000000Z-unknwn`, { token: env.owner });
    for (const longRunId of ["r".repeat(SORT_KEY_LIMIT + 1), "é".repeat(513)]) {
      const response = await env.api.request("GET", `${path}${encodeURIComponent(longRunId)}`, { token: env.owner });
      expectNotFoundLikeUnknown(response, unknown, "20990101T000000000Z-unknwn", longRunId);
    }
  });

  test("at the limit the store is asked and answers 404: a run id of exactly 1024 bytes, a connection id whose key is exactly 1024 bytes", async () => {
    const runAtLimit = await env.api.request("GET", `${CONNECTIONS_PATH}/${connectionId}/syncs/${"r".repeat(SORT_KEY_LIMIT)}`, { token: env.owner });
    expect(runAtLimit.status, runAtLimit.text.slice(0, 200)).toBe(404);
    const idAtLimit = "k".repeat(SORT_KEY_LIMIT - ACCOUNT_KEY_PREFIX_BYTES);
    const connectionAtLimit = await env.api.request("GET", `${CONNECTIONS_PATH}/${idAtLimit}`, { token: env.owner });
    expect(connectionAtLimit.status, connectionAtLimit.text.slice(0, 200)).toBe(404);
  });
});

function expectInvalidField(response: ApiResponse, field: string, rule: RegExp): void {
  expect(response.status, response.text.slice(0, 300)).toBe(422);
  expect(response.body.error).toEqual({ code: "invalid_field", field, rule: expect.stringMatching(rule), message: expect.any(String), errors: [{ field, rule: response.body.error.rule }] });
}

describe("base_url and token have a maximum length: 422 above it naming the field and the rule, on POST and PATCH", () => {
  const urlOfLength = (length: number) => {
    const prefix = "https://crm.example.com/";
    return prefix + "a".repeat(length - prefix.length);
  };

  test("base_url: 2048 characters is accepted, 2049 and 600 KB are a 422 on POST", async () => {
    expect(MAX_BASE_URL_LENGTH).toBe(2048);
    const atLimit = await env.api.request("POST", CONNECTIONS_PATH, { token: env.owner, body: { base_url: urlOfLength(2048), token: SOURCE_TOKEN } });
    expect(atLimit.status, atLimit.text.slice(0, 300)).toBe(201);
    for (const length of [2049, 600_000]) {
      const response = await env.api.request("POST", CONNECTIONS_PATH, { token: env.owner, body: { base_url: urlOfLength(length), token: SOURCE_TOKEN } });
      expectInvalidField(response, "base_url", /must be at most 2048 characters/);
    }
  });

  test("base_url of 600 KB on PATCH: a 422, and the connection keeps its base_url", async () => {
    const response = await env.api.request("PATCH", `${CONNECTIONS_PATH}/${connectionId}`, { token: env.owner, body: { base_url: urlOfLength(600_000) } });
    expectInvalidField(response, "base_url", /must be at most 2048 characters/);
    const after = await env.api.request("GET", `${CONNECTIONS_PATH}/${connectionId}`, { token: env.owner });
    expect(after.body.base_url).toBe(BASE_URL);
  });

  test("token: 4097 characters and 600 KB are a 422 on POST and PATCH", async () => {
    expect(MAX_TOKEN_LENGTH).toBe(4096);
    for (const length of [4097, 600_000]) {
      const posted = await env.api.request("POST", CONNECTIONS_PATH, { token: env.owner, body: { base_url: BASE_URL, token: "t".repeat(length) } });
      expectInvalidField(posted, "token", /must be at most 4096 characters/);
      const patched = await env.api.request("PATCH", `${CONNECTIONS_PATH}/${connectionId}`, { token: env.owner, body: { token: "t".repeat(length) } });
      expectInvalidField(patched, "token", /must be at most 4096 characters/);
    }
  });
});

/** A request exactly as written (fetch would normalise some paths), on its own connection unless an agent is given. */
function rawRequest(
  method: string,
  path: string,
  options: { headers?: Record<string, string>; body?: string | Buffer; agent?: Agent } = {},
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; text: string }> {
  const { hostname, port } = new URL(env.api.url);
  return new Promise((resolve, reject) => {
    const request = httpRequest({ host: hostname, port, method, path, headers: options.headers, agent: options.agent ?? false }, (response) => {
      let text = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => (text += chunk));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, headers: response.headers, text }));
    });
    request.on("error", reject);
    request.end(options.body);
  });
}

describe("a malformed percent-escape in a path is a 400 from the local server, not a crash or a 500", () => {
  const MALFORMED = ["%", "%zz", "%E0%A4%A", "%ED%A0%80", "abc%2"];
  const paths = (bad: string) => [
    `${CONNECTIONS_PATH}/${bad}`,
    `${CONNECTIONS_PATH}/${bad}/syncs`,
    `${CONNECTIONS_PATH}/{id}/syncs/${bad}`,
    `${CONNECTIONS_PATH}/{id}/records/${bad}`,
  ];

  for (const bad of MALFORMED) {
    test(`${bad}: 400 on every route with a path parameter, with and without a session token`, async () => {
      for (const path of paths(bad).map((p) => p.replace("{id}", connectionId))) {
        for (const method of ["GET", "PATCH", "DELETE", "POST"]) {
          for (const headers of [{ authorization: `Bearer ${env.owner}` }, {}] as Array<Record<string, string>>) {
            const response = await rawRequest(method, path, { headers });
            // A method with no route at this path is API Gateway's 404; any route that matches must be a 400.
            expect([400, 404], `${method} ${path}`).toContain(response.status);
          }
        }
        const get = await rawRequest("GET", path, { headers: { authorization: `Bearer ${env.owner}` } });
        expect(get.status, path).toBe(400);
        expect(JSON.parse(get.text)).toEqual({ message: "Bad Request" });
      }
    });
  }

  test("the server still answers afterwards", async () => {
    expect((await env.api.request("GET", `${CONNECTIONS_PATH}/${connectionId}`, { token: env.owner })).status).toBe(200);
  });
});

describe("odd requests of every kind get a 4xx (or are served), never a 5xx", () => {
  const auth = () => ({ authorization: `Bearer ${env.owner}` });

  test("a body over 1 MiB is a 413 that closes the connection: the next request on a kept-alive connection is answered", async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const huge = Buffer.alloc(4 * MAX_REQUEST_BODY_BYTES, "x");
      const refused = await rawRequest("POST", CONNECTIONS_PATH, { headers: { ...auth(), "content-type": "application/json" }, body: huge, agent });
      expect(refused.status).toBe(413);
      const next = await rawRequest("GET", CONNECTIONS_PATH, { headers: auth(), agent });
      expect(next.status).toBe(200);
      expect(refused.headers["connection"]).toBe("close");
    } finally {
      agent.destroy();
    }
  });

  test("deeply nested JSON: 400k levels as a field's value is that field's 422; as the body, a 400", async () => {
    const nested = `${"[".repeat(400_000)}${"]".repeat(400_000)}`;
    const asField = await env.api.request("POST", CONNECTIONS_PATH, { token: env.owner, rawBody: `{"base_url":"${BASE_URL}","token":${nested}}` });
    expectInvalidField(asField, "token", /must be a string/);
    const asBody = await env.api.request("POST", CONNECTIONS_PATH, { token: env.owner, rawBody: nested });
    expect(asBody.status).toBe(400);
    const unclosed = await env.api.request("PATCH", `${CONNECTIONS_PATH}/${connectionId}`, { token: env.owner, rawBody: "{".repeat(400_000) });
    expect(unclosed.status).toBe(400);
  });

  test("wrong or missing content-type: the body is read as JSON, as API Gateway passes it through", async () => {
    for (const contentType of ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", undefined]) {
      const headers: Record<string, string> = { ...auth(), ...(contentType ? { "content-type": contentType } : {}) };
      const valid = await rawRequest("PATCH", `${CONNECTIONS_PATH}/${connectionId}`, { headers, body: JSON.stringify({ rate_limit: 4 }) });
      expect(valid.status, String(contentType)).toBe(200);
      const form = await rawRequest("POST", CONNECTIONS_PATH, { headers, body: "base_url=x&token=y" });
      expect(form.status, String(contentType)).toBe(400);
    }
  });

  test("methods no route serves: 404 (or Node's own 400 for a method HTTP does not know), never a 5xx", async () => {
    for (const method of ["PUT", "OPTIONS", "HEAD", "TRACE", "PROPFIND", "CONNECT_NOT", "FOO"]) {
      for (const path of [CONNECTIONS_PATH, `${CONNECTIONS_PATH}/${connectionId}`, `${CONNECTIONS_PATH}/${connectionId}/syncs`]) {
        const response = await rawRequest(method, path, { headers: auth() });
        expect([400, 404], `${method} ${path}`).toContain(response.status);
      }
    }
  });

  test("query strings with bad escapes: read as sent, so a bad limit or cursor is a 422 and an ignored one is harmless", async () => {
    const records = `${CONNECTIONS_PATH}/${connectionId}/records/leads`;
    for (const query of ["limit=%zz", "limit=%", "cursor=%", "cursor=%E0%A4%A", "cursor=%zz%zz", `cursor=${"%zz".repeat(2000)}`]) {
      const response = await rawRequest("GET", `${records}?${query}`, { headers: auth() });
      expect(response.status, query).toBe(422);
    }
    for (const query of ["x=%", "%zz=1", "&&&", "a=%E0%A4%A&b"]) {
      expect((await rawRequest("GET", `${CONNECTIONS_PATH}?${query}`, { headers: auth() })).status, query).toBe(200);
    }
  });

  test("records order: a value other than key or newest is a 422 naming order, and a cursor of the other order is a 422", async () => {
    const records = `${CONNECTIONS_PATH}/${connectionId}/records/leads`;
    const bad = await rawRequest("GET", `${records}?order=oldest`, { headers: auth() });
    expect(bad.status).toBe(422);
    expect(JSON.parse(bad.text)).toMatchObject({ error: { field: "order", rule: "must be one of key, newest" } });
    expect((await rawRequest("GET", `${records}?order=newest`, { headers: auth() })).status).toBe(200);
    const keyCursor = Buffer.from(JSON.stringify({ sk: "lead-1" })).toString("base64url");
    expect((await rawRequest("GET", `${records}?order=newest&cursor=${keyCursor}`, { headers: auth() })).status).toBe(422);
  });

  test("odd request targets: never a 5xx", async () => {
    for (const target of ["//", "///api/v1", "/%", "/api/v1/%", "*", "/api/v1/crm/custom/connections/..%2F..%2F", "/api/v1/crm/custom/connections/%2e%2e"]) {
      const response = await rawRequest("GET", target, { headers: auth() });
      expect(response.status, target).toBeLessThan(500);
    }
  });

  test("no response above was a 5xx, and no unexpected error was logged", () => {
    expect(env.api.logger.lines.filter((line) => line["level"] === "error")).toEqual([]);
    const statuses = env.api.logger.lines.filter((line) => line["message"] === "api request").map((line) => line["status"] as number);
    expect(statuses.filter((status) => status >= 500)).toEqual([]);
  });
});
