import { beforeAll, describe, expect, test } from "vitest";
import { pipelineRecord } from "../../builders/source-records";
import { crmSource } from "../../support/crm-source";
import { CONNECTIONS_PATH, useOwnerApi } from "../../support/api-harness";
import type { SourceServer } from "../../support/source-server";
import { useSourceServers } from "../../support/source-servers";

/**
 * POST .../connections/test: the new-connection form's Test, against what the owner typed and has not saved. It
 * answers as a stored connection's test does, checks the body as creating a connection does, keeps the same SSRF
 * guard, and stores nothing.
 */
const DRAFT_PATH = `${CONNECTIONS_PATH}/test`;
// Long enough that an 8-character run of it would show in a detail or a log line.
const SOURCE_TOKEN = "draft-source-token-9b4e71c2";

describe("the test of a connection not saved yet", () => {
  const env = useOwnerApi("acct-draft-test");
  const serve = useSourceServers("all");
  let source: SourceServer;

  beforeAll(async () => {
    source = await serve(crmSource(() => ({ pipelines: [pipelineRecord(), pipelineRecord({ id: "pipeline-2" })], users: [], contacts: [], leads: [] }), { token: SOURCE_TOKEN }));
  });

  test("calls the typed base URL with the typed token and answers as a stored connection's test does", async () => {
    const seen = source.requests.length;
    const tested = await env.api.request("POST", DRAFT_PATH, { token: env.owner, body: { base_url: `${source.baseUrl}/`, token: SOURCE_TOKEN, rate_limit: 50 } });
    expect(tested.status, tested.text).toBe(200);
    expect(tested.body).toEqual({ reachable: true, authenticated: true, detail: "GET /pipelines answered 200 with 2 pipeline(s) on the first page", pipelines_found: 2 });
    const sent = source.requests.slice(seen);
    expect(sent.map((request) => [request.path, request.query["page"], request.headers["authorization"]])).toEqual([["/pipelines", "1", `Bearer ${SOURCE_TOKEN}`]]);
  });

  test("stores nothing: no connection, no token", async () => {
    expect((await env.api.request("GET", CONNECTIONS_PATH, { token: env.owner })).body).toEqual({ data: [] });
    expect(await env.api.sync.connections.listAll()).toEqual([]);
  });

  test("a token the source refuses: reachable, not authenticated, and the token in no answer or log line", async () => {
    const linesBefore = env.api.logger.lines.length;
    const wrong = `${SOURCE_TOKEN}-typo`;
    const tested = await env.api.request("POST", DRAFT_PATH, { token: env.owner, body: { base_url: source.baseUrl, token: wrong } });
    expect(tested.status).toBe(200);
    expect(tested.body).toMatchObject({ reachable: true, authenticated: false });
    expect(tested.body.pipelines_found).toBeUndefined();
    const said = `${tested.text}\n${JSON.stringify(env.api.logger.lines.slice(linesBefore))}`;
    expect(said).not.toContain(wrong.slice(0, 8));
    expect(said).not.toContain(wrong.slice(10, 18));
  });

  test.each([
    ["a missing base URL", { token: SOURCE_TOKEN }, "base_url", "is required"],
    ["an empty base URL", { base_url: " ", token: SOURCE_TOKEN }, "base_url", "must not be empty"],
    ["a missing token", { base_url: "https://crm.example.com" }, "token", "is required"],
    ["a token with a space", { base_url: "https://crm.example.com", token: "two words" }, "token", "must be printable ASCII without spaces"],
    ["a rate of 0", { base_url: "https://crm.example.com", token: SOURCE_TOKEN, rate_limit: 0 }, "rate_limit", "must be an integer from 1 to 1000"],
    ["a rate of 1001", { base_url: "https://crm.example.com", token: SOURCE_TOKEN, rate_limit: 1001 }, "rate_limit", "must be an integer from 1 to 1000"],
  ])("the rules of creating a connection: %s is a 422 naming the field", async (_what, body, field, rule) => {
    const seen = source.requests.length;
    const tested = await env.api.request("POST", DRAFT_PATH, { token: env.owner, body });
    expect(tested.status, tested.text).toBe(422);
    expect(tested.body.error).toMatchObject({ field, rule });
    expect(source.requests.length).toBe(seen);
  });

  test("every broken field at once: a base URL that is not a web address is named in the same 422 as a missing token and a rate of 0, first", async () => {
    for (const path of [DRAFT_PATH, CONNECTIONS_PATH]) {
      const tested = await env.api.request("POST", path, { token: env.owner, body: { base_url: "not a web address", token: "", rate_limit: 0 } });
      expect(tested.status, tested.text).toBe(422);
      expect(tested.body.error.errors.map((problem: { field: string }) => problem.field), path).toEqual(["base_url", "token", "rate_limit"]);
      expect(tested.body.error).toMatchObject({ field: "base_url", rule: expect.stringMatching(/http or https/) });
    }
    // A base URL that passes alone is not named.
    const rateOnly = await env.api.request("POST", DRAFT_PATH, { token: env.owner, body: { base_url: source.baseUrl, token: SOURCE_TOKEN, rate_limit: 0 } });
    expect(rateOnly.body.error.errors).toEqual([{ field: "rate_limit", rule: "must be an integer from 1 to 1000" }]);
    expect(await env.api.sync.connections.listAll()).toEqual([]);
  });

  test("a body that is not JSON is a 400", async () => {
    const tested = await env.api.request("POST", DRAFT_PATH, { token: env.owner, rawBody: "base_url=x" });
    expect(tested.status).toBe(400);
  });

  test.each(["ROP", "MOP"] as const)("%s is refused (403) and nothing is called", async (role) => {
    const seen = source.requests.length;
    const tested = await env.api.request("POST", DRAFT_PATH, { token: await env.api.token("acct-draft-test", role), body: { base_url: source.baseUrl, token: SOURCE_TOKEN } });
    expect(tested.status).toBe(403);
    expect(source.requests.length).toBe(seen);
  });
});

describe("the same SSRF guard as a stored connection's test", () => {
  const cloud = useOwnerApi("acct-draft-ssrf", { allowLoopbackSources: false });

  test.each(["http://127.0.0.1:1", "http://localhost:1", "http://169.254.169.254/latest", "http://10.0.0.1", "http://[::ffff:127.0.0.1]/", "http://2130706433/"])(
    "refuses base_url %s with a 422 naming base_url, before any request",
    async (baseUrl) => {
      const tested = await cloud.api.request("POST", DRAFT_PATH, { token: cloud.owner, body: { base_url: baseUrl, token: SOURCE_TOKEN } });
      expect(tested.status, tested.text).toBe(422);
      expect(tested.body.error).toMatchObject({ code: "invalid_field", field: "base_url", rule: expect.stringMatching(/^base_url points to /) });
    },
  );
});
