import { beforeAll, describe, expect, test } from "vitest";
import { CONNECTIONS_PATH, useOwnerApi, type ApiResponse } from "../../support/api-harness";

/**
 * Every bad request gets a 4xx with a JSON body that names the field and the
 * rule, and creates or changes nothing. No source is needed: nothing here
 * may ever reach one (the base_url below is never called).
 */

const BASE_URL = "http://127.0.0.1:9/api";
const SOURCE_TOKEN = "src-input-api-0b7d";
const VALID = { base_url: BASE_URL, token: SOURCE_TOKEN } as const;

const env = useOwnerApi("acct-input");

/** The onboarding API's error body for a field that breaks a rule. */
function expectInvalidField(response: ApiResponse, field: string, rule: RegExp): void {
  expect(response.status, response.text).toBe(422);
  expect(Object.keys(response.body)).toEqual(["error"]);
  expect(response.body.error).toEqual({
    code: "invalid_field",
    field,
    rule: expect.stringMatching(rule),
    message: expect.any(String),
    errors: [{ field, rule: response.body.error.rule }],
  });
  // The message says both, for a human reading it.
  expect(response.body.error.message).toContain(field);
  expect(response.body.error.message).toContain(response.body.error.rule);
}

function expectMalformedBody(response: ApiResponse): void {
  expect(response.status, response.text).toBe(400);
  expect(response.body).toEqual({ error: { code: "malformed_body", message: expect.any(String) } });
}

const RATE_RULE = /integer from 1 to 1000/;
const TIMESTAMP_RULE = /ISO-8601/;

/** [what, body change, field, rule]; `undefined` deletes the key from a valid body. */
const BAD_FIELDS: ReadonlyArray<readonly [string, Record<string, unknown>, string, RegExp]> = [
  ["missing base_url", { base_url: undefined }, "base_url", /is required/],
  ["empty base_url", { base_url: "" }, "base_url", /must not be empty/],
  ["blank base_url", { base_url: "   " }, "base_url", /must not be empty/],
  ["base_url a number", { base_url: 123 }, "base_url", /must be a string/],
  ["missing token", { token: undefined }, "token", /is required/],
  ["empty token", { token: "" }, "token", /must not be empty/],
  ["token a number", { token: 123 }, "token", /must be a string/],
  ["token with a space", { token: "two words" }, "token", /printable ASCII/],
  ["token over 4096 characters", { token: "t".repeat(4097) }, "token", /at most 4096/],
  ["base_url not absolute", { base_url: "api.example.com" }, "base_url", /absolute http or https URL/],
  ["base_url ftp://", { base_url: "ftp://api.example.com/crm" }, "base_url", /absolute http or https URL/],
  ["base_url with user:pass@", { base_url: "https://user:pass@api.example.com/crm" }, "base_url", /user name or password/],
  ["rate_limit 0", { rate_limit: 0 }, "rate_limit", RATE_RULE],
  ["rate_limit -1", { rate_limit: -1 }, "rate_limit", RATE_RULE],
  ["rate_limit 1.5", { rate_limit: 1.5 }, "rate_limit", RATE_RULE],
  ['rate_limit "5"', { rate_limit: "5" }, "rate_limit", RATE_RULE],
  ["rate_limit null", { rate_limit: null }, "rate_limit", RATE_RULE],
  ["rate_limit 1001", { rate_limit: 1001 }, "rate_limit", RATE_RULE],
  ['sync_since "yesterday"', { sync_since: "yesterday" }, "sync_since", TIMESTAMP_RULE],
  ['sync_since "2026-02-30"', { sync_since: "2026-02-30" }, "sync_since", TIMESTAMP_RULE],
  ["sync_since 123", { sync_since: 123 }, "sync_since", TIMESTAMP_RULE],
  ['trigger_sync "yes"', { trigger_sync: "yes" }, "trigger_sync", /must be a boolean/],
  ["name of 0 characters", { name: "" }, "name", /must not be empty/],
  ["name of spaces only", { name: "   " }, "name", /must not be empty/],
  ["name of 101 characters", { name: "n".repeat(101) }, "name", /at most 100 characters/],
  ["name a number", { name: 7 }, "name", /must be a string/],
  ["name with a newline", { name: "Acme\nCRM" }, "name", /control characters/],
];

function withChange(base: Record<string, unknown>, change: Record<string, unknown>): Record<string, unknown> {
  const body: Record<string, unknown> = { ...base, ...change };
  for (const [key, value] of Object.entries(change)) if (value === undefined) delete body[key];
  return body;
}

/** [what, raw body]: none of these is a JSON object. */
const MALFORMED_BODIES: ReadonlyArray<readonly [string, string | undefined]> = [
  ["an array", JSON.stringify([VALID])],
  ["a string", JSON.stringify("base_url=http://x")],
  ['"null"', "null"],
  ["a number", "42"],
  ["malformed JSON", '{"base_url": "http://127.0.0.1:9", "token": '],
  ["no body at all", undefined],
];

describe("POST /connections: every bad body gets a 4xx naming the field and the rule, and creates nothing", () => {
  const creator = "acct-input-create";
  let token: string;
  beforeAll(async () => {
    token = await env.api.token(creator);
  });

  test.each(BAD_FIELDS)("%s: 422 invalid_field", async (_what, change, field, rule) => {
    const response = await env.api.request("POST", CONNECTIONS_PATH, { token, body: withChange(VALID, change) });
    expectInvalidField(response, field, rule);
  });

  test.each(MALFORMED_BODIES)("body %s: 400 malformed_body", async (_what, rawBody) => {
    const response = await env.api.request("POST", CONNECTIONS_PATH, { token, ...(rawBody === undefined ? {} : { rawBody }) });
    expectMalformedBody(response);
  });

  test("after all of them the workspace has no connection, and no sync was started", async () => {
    const list = await env.api.request("GET", CONNECTIONS_PATH, { token });
    expect(list.status).toBe(200);
    expect(list.body).toEqual({ data: [] });
    expect(await env.api.sync.connections.listByAccount(creator)).toEqual([]);
    expect(env.api.logger.lines.filter((line) => line["message"] === "connection created")).toEqual([]);
    // The refused tokens were never logged or echoed either.
    expect(JSON.stringify(env.api.logger.lines)).not.toContain(SOURCE_TOKEN);
  });

  test("the same bodies made valid are accepted: the refusals above were for the named field only", async () => {
    const response = await env.api.request("POST", CONNECTIONS_PATH, { token, body: { ...VALID, rate_limit: 1000, sync_since: "2026-02-28", trigger_sync: false } });
    expect(response.status).toBe(201);
    await env.api.request("DELETE", `${CONNECTIONS_PATH}/${response.body.id}`, { token });
  });

  test("every broken field at once: a form can show them all, each with its first broken rule, the first also as field and rule", async () => {
    const response = await env.api.request("POST", CONNECTIONS_PATH, {
      token: env.owner,
      body: { name: " ", base_url: "", token: "two words", rate_limit: 0, sync_since: "yesterday", freshness_hours: 0 },
    });
    expect(response.status, response.text).toBe(422);
    expect(response.body.error.errors).toEqual([
      { field: "name", rule: "must not be empty" },
      { field: "base_url", rule: "must not be empty" },
      { field: "token", rule: "must be printable ASCII without spaces" },
      { field: "rate_limit", rule: "must be an integer from 1 to 1000" },
      { field: "sync_since", rule: expect.stringMatching(TIMESTAMP_RULE) },
      { field: "freshness_hours", rule: expect.stringMatching(/must be an integer from 1 to/) },
    ]);
    expect(response.body.error).toMatchObject({ field: "name", rule: "must not be empty" });
    expect((await env.api.request("GET", CONNECTIONS_PATH, { token: env.owner })).body.data.every((connection: { name: string | null }) => connection.name !== " ")).toBe(true);
  });

  test("an unknown field is ignored: 201, and it is not echoed or stored", async () => {
    const response = await env.api.request("POST", CONNECTIONS_PATH, { token: env.owner, body: { ...VALID, colour: "chartreuse-7c", is_admin: true } });
    expect(response.status).toBe(201);
    expect(response.body).not.toHaveProperty("colour");
    expect(response.body).not.toHaveProperty("is_admin");
    expect(response.text).not.toContain("chartreuse-7c");
    const stored = await env.api.sync.connections.get("acct-input", response.body.id);
    expect(stored).not.toHaveProperty("colour");
  });
});

describe("PATCH /connections/{id}: the same field rules, and a bad PATCH changes nothing", () => {
  let id: string;
  let before: Record<string, unknown>;
  let storedBefore: unknown;

  beforeAll(async () => {
    const created = await env.api.request("POST", CONNECTIONS_PATH, {
      token: env.owner,
      body: { ...VALID, rate_limit: 7, sync_since: "2025-06-01T00:00:00Z" },
    });
    expect(created.status).toBe(201);
    id = created.body.id;
    before = created.body;
    storedBefore = await env.api.sync.connections.get("acct-input", id);
  });

  // PATCH has no required field and no trigger_sync: the rest of the POST rules apply as they are.
  const patchCases = BAD_FIELDS.filter(([what]) => !what.startsWith("missing") && !what.startsWith("trigger_sync"));

  test.each(patchCases)("%s: 422 invalid_field", async (_what, change, field, rule) => {
    const response = await env.api.request("PATCH", `${CONNECTIONS_PATH}/${id}`, { token: env.owner, body: change });
    expectInvalidField(response, field, rule);
  });

  test.each(MALFORMED_BODIES)("body %s: 400 malformed_body", async (_what, rawBody) => {
    const response = await env.api.request("PATCH", `${CONNECTIONS_PATH}/${id}`, {
      token: env.owner,
      ...(rawBody === undefined ? {} : { rawBody }),
    });
    expectMalformedBody(response);
  });

  test("an empty body {} is a 422: there is nothing to change", async () => {
    const response = await env.api.request("PATCH", `${CONNECTIONS_PATH}/${id}`, { token: env.owner, body: {} });
    expectInvalidField(response, "(body)", /at least one of base_url, token, rate_limit, sync_since/);
  });

  test('unknown fields are ignored, so { "colour": "red" } alone is a 422: there is nothing to change', async () => {
    const response = await env.api.request("PATCH", `${CONNECTIONS_PATH}/${id}`, { token: env.owner, body: { colour: "red" } });
    expectInvalidField(response, "(body)", /at least one of/);
  });

  test("trigger_sync is not a PATCH field: alone it is a 422 and starts no sync", async () => {
    const response = await env.api.request("PATCH", `${CONNECTIONS_PATH}/${id}`, { token: env.owner, body: { trigger_sync: true } });
    expectInvalidField(response, "(body)", /at least one of/);
    expect(await env.api.sync.runs.list(id)).toEqual([]);
  });

  test("a good field next to a bad one changes nothing: the whole PATCH is refused", async () => {
    const badUrl = await env.api.request("PATCH", `${CONNECTIONS_PATH}/${id}`, {
      token: env.owner,
      body: { rate_limit: 3, token: "src-input-new-token", base_url: "ftp://api.example.com" },
    });
    expectInvalidField(badUrl, "base_url", /absolute http or https URL/);
    const badRate = await env.api.request("PATCH", `${CONNECTIONS_PATH}/${id}`, {
      token: env.owner,
      body: { sync_since: "2024-01-01", token: "src-input-new-token", rate_limit: 0 },
    });
    expectInvalidField(badRate, "rate_limit", RATE_RULE);
  });

  test("after every bad PATCH, GET shows the old values and the stored token is the old one", async () => {
    const fetched = await env.api.request("GET", `${CONNECTIONS_PATH}/${id}`, { token: env.owner });
    expect(fetched.status).toBe(200);
    expect(fetched.body).toEqual(before);
    expect(await env.api.sync.connections.get("acct-input", id)).toEqual(storedBefore);
    expect(env.api.logger.lines.filter((line) => line["message"] === "connection updated")).toEqual([]);
  });

  test("a valid field with an unknown one: 200, the unknown one ignored and not echoed", async () => {
    const response = await env.api.request("PATCH", `${CONNECTIONS_PATH}/${id}`, { token: env.owner, body: { rate_limit: 9, colour: "red" } });
    expect(response.status).toBe(200);
    expect(response.body.rate_limit).toBe(9);
    expect(response.body).not.toHaveProperty("colour");
  });
});

describe("GET /connections/{id}/records/{entity}: query rules", () => {
  let id: string;
  const records = (entity: string, query = "") => `${CONNECTIONS_PATH}/${id}/records/${entity}${query}`;

  beforeAll(async () => {
    id = (await env.api.request("POST", CONNECTIONS_PATH, { token: env.owner, body: VALID })).body.id;
  });

  test.each(["0", "1001", "abc", "-1", "1.5", "", "1e2"])("limit=%s: 422 naming the field limit", async (limit) => {
    const response = await env.api.request("GET", records("leads", `?limit=${encodeURIComponent(limit)}`), { token: env.owner });
    expectInvalidField(response, "limit", /integer from 1 to 1000/);
  });

  test("limit 1 and 1000 are accepted", async () => {
    for (const limit of ["1", "1000"]) {
      const response = await env.api.request("GET", records("leads", `?limit=${limit}`), { token: env.owner });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ data: [], next_cursor: null });
    }
  });

  test.each([
    ["not base64url", "not a cursor!"],
    ["base64url of no JSON", "abc"],
    ["base64url JSON without a sort key", Buffer.from(JSON.stringify({ page: 2 })).toString("base64url")],
    ["a sort key longer than DynamoDB's 1024 bytes", Buffer.from(JSON.stringify({ sk: "x".repeat(1025) })).toString("base64url")],
  ])("a bad cursor (%s): 422 naming the field cursor", async (_what, cursor) => {
    const response = await env.api.request("GET", records("leads", `?cursor=${encodeURIComponent(cursor)}`), { token: env.owner });
    expectInvalidField(response, "cursor", /./);
  });

  test("a newest-first cursor whose newest value is not a date: 422 naming the field cursor, never a 5xx", async () => {
    for (const n of ["not a date", "9".repeat(2000), ""]) {
      const cursor = Buffer.from(JSON.stringify({ sk: "lead-1", n })).toString("base64url");
      const response = await env.api.request("GET", records("leads", `?order=newest&cursor=${cursor}`), { token: env.owner });
      expectInvalidField(response, "cursor", /./);
    }
  });

  test("an empty cursor: 422 naming the field cursor", async () => {
    const response = await env.api.request("GET", records("leads", "?cursor="), { token: env.owner });
    expectInvalidField(response, "cursor", /must not be empty/);
  });

  test.each(["opportunities", "Leads", "watermarks", "connections"])("an unknown entity %s: 404 not_found", async (entity) => {
    const response = await env.api.request("GET", records(entity), { token: env.owner });
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ error: { code: "not_found", message: expect.stringContaining(entity) } });
  });
});
