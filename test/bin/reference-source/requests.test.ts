import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startReferenceSource, type ReferenceSource } from "../../../bin/reference-source/start-reference-source";
import { SourceAuthError } from "../../../lambdas/domain/core/errors";
import { createHttpSourceClient } from "../../../lambdas/adapters/source-http/http-source-client";

let source: ReferenceSource;
beforeAll(async () => {
  source = await startReferenceSource({
    token: "s3cret-Token_1",
    now: new Date("2026-06-01T12:00:00Z"),
    sizes: { contacts: 50, leads: 50, tasks: 20, calls: 20, events: 30 },
  });
});
afterAll(() => source.close());

async function request(
  path: string,
  options: { authorization?: string | null; method?: string } = {},
): Promise<{ status: number; headers: Headers; body: unknown }> {
  const authorization = options.authorization === undefined ? `Bearer ${source.token}` : options.authorization;
  const response = await fetch(`${source.url}${path}`, {
    method: options.method ?? "GET",
    headers: authorization === null ? {} : { authorization },
  });
  return { status: response.status, headers: response.headers, body: await response.json() };
}

describe("authentication: Bearer token, exact match", () => {
  test.each([
    ["missing", null],
    ["wrong", "Bearer nope"],
    ["with one character changed", "Bearer s3cret-Token_2"],
    ["one character longer", "Bearer s3cret-Token_1x"],
    ["only a prefix", "Bearer s3cret"],
    ["without the Bearer scheme", "s3cret-Token_1"],
    ["under another scheme", "Basic s3cret-Token_1"],
    ["with the scheme in lower case", "bearer s3cret-Token_1"],
  ])("token %s: 401 { error: 'invalid token' } on every endpoint", async (_name, authorization) => {
    for (const endpoint of ["pipelines", "users", "contacts", "leads", "tasks", "calls", "events", "nowhere"]) {
      const { status, body } = await request(`/${endpoint}`, { authorization });
      expect(status, endpoint).toBe(401);
      expect(body).toEqual({ error: "invalid token" });
    }
  });

  test("the right token: 200; the service's client reads a 401 as SourceAuthError", async () => {
    expect((await request("/pipelines")).status).toBe(200);
    const client = createHttpSourceClient();
    await expect(client.fetchPage({ baseUrl: source.url, token: "wrong" }, { path: "/pipelines", page: 1 })).rejects.toBeInstanceOf(
      SourceAuthError,
    );
  });
});

describe("requests the source API does not serve", () => {
  test.each(["POST", "PUT", "PATCH", "DELETE"])("%s: 405 with Allow: GET and an error string", async (method) => {
    const { status, headers, body } = await request("/leads", { method });
    expect(status).toBe(405);
    expect(headers.get("allow")).toBe("GET");
    expect(body).toEqual({ error: expect.stringContaining("read-only") });
  });

  test.each(["/", "/stages", "/leads/1", "/Leads"])("unknown path %s: 404 with an error string", async (path) => {
    const { status, body } = await request(path);
    expect(status).toBe(404);
    expect(body).toEqual({ error: expect.stringContaining(`no endpoint ${path}`) });
  });

  test.each([
    ["limit=0", /limit must be a whole number from 1 to 100/],
    ["limit=101", /limit/],
    ["limit=abc", /limit/],
    ["limit=1.5", /limit/],
    ["limit=", /limit/],
    ["page=0", /page must be a whole number >= 1/],
    ["page=-1", /page/],
    ["page=two", /page/],
  ])("%s: 400 with an error string", async (query, message) => {
    const { status, body } = await request(`/leads?${query}`);
    expect(status).toBe(400);
    expect(body).toEqual({ error: expect.stringMatching(message) });
  });

  test("limit=1 and limit=100 are both accepted", async () => {
    expect(await request("/leads?limit=1")).toMatchObject({ status: 200, body: { limit: 1 } });
    expect(await request("/leads?limit=100")).toMatchObject({ status: 200, body: { limit: 100 } });
  });
});

describe("responses", () => {
  test("every answer, success or error, is JSON with content-type application/json", async () => {
    for (const [path, init] of [
      ["/leads", {}],
      ["/leads", { authorization: null }],
      ["/nowhere", {}],
      ["/leads?page=0", {}],
      ["/leads", { method: "POST" }],
    ] as const) {
      const { headers } = await request(path, init);
      expect(headers.get("content-type"), path).toBe("application/json");
    }
  });

  test("the request log: method, path, decoded query, status and arrival time of each request, in order", async () => {
    const before = source.requests.length;
    const startedAt = Date.now();
    await request("/leads?limit=5&page=2&updated_since=2026-01-01T00:00:00%2B02:00");
    await request("/users", { authorization: null });
    expect(source.requests.slice(before)).toEqual([
      {
        method: "GET",
        path: "/leads",
        query: { limit: "5", page: "2", updated_since: "2026-01-01T00:00:00+02:00" },
        status: 200,
        receivedAt: expect.any(Number),
      },
      { method: "GET", path: "/users", query: {}, status: 401, receivedAt: expect.any(Number) },
    ]);
    expect(source.requests.at(-1)?.receivedAt).toBeGreaterThanOrEqual(startedAt);
  });
});
