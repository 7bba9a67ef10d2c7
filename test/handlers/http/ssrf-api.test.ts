import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { pipelineRecord } from "../../builders/source-records";
import { crmSource } from "../../support/crm-source";
import { createApiHarness, CONNECTIONS_PATH, useOwnerApi, type ApiHarness } from "../../support/api-harness";
import { startSourceServer, type SourceServer } from "../../support/source-server";

/**
 * base_url cannot be turned against us: no address literal in any notation
 * that reaches loopback, private, link-local, CGNAT or metadata addresses is
 * accepted (the cloud setting), and what the local runtime lets through
 * (loopback only) is refused again at connect time by a service that does not.
 */

const SOURCE_TOKEN = "src-ssrf-api-5e21";
const PUBLIC_BASE_URL = "https://crm.example.com/api/v1";

/** Every one of these must be refused wherever loopback is not allowed. */
const REFUSED = [
  "http://127.0.0.1:1",
  "http://localhost:1",
  "http://[::1]:1",
  "http://169.254.169.254/latest",
  "http://[fd00:ec2::254]/",
  "http://10.0.0.1",
  "http://172.16.0.1",
  "http://192.168.0.1",
  "http://100.64.0.1",
  "http://0177.0.0.1/",
  "http://2130706433/",
  "http://127.1/",
  "http://[::ffff:127.0.0.1]/",
  "http://[::127.0.0.1]/",
] as const;

/** Refused even where loopback is allowed: private, metadata, and loopback hidden inside another form. */
const REFUSED_EVEN_LOCALLY = [
  "http://169.254.169.254/latest",
  "http://10.0.0.1",
  "http://[fd00:ec2::254]/",
  "http://[::ffff:127.0.0.1]/",
] as const;

function expectBaseUrlRefused(response: { status: number; body: any; text: string }): void {
  expect(response.status, response.text).toBe(422);
  expect(response.body.error).toMatchObject({ code: "invalid_field", field: "base_url", rule: expect.stringMatching(/^base_url points to /) });
}

describe("the cloud setting (allowLoopbackSources: false)", () => {
  const env = useOwnerApi("acct-ssrf-cloud", { allowLoopbackSources: false });

  test.each(REFUSED)("POST refuses base_url %s: 422 naming base_url", async (baseUrl) => {
    const response = await env.api.request("POST", CONNECTIONS_PATH, { token: env.owner, body: { base_url: baseUrl, token: SOURCE_TOKEN } });
    expectBaseUrlRefused(response);
  });

  test("nothing was created by any of them", async () => {
    expect((await env.api.request("GET", CONNECTIONS_PATH, { token: env.owner })).body).toEqual({ data: [] });
    expect(await env.api.sync.connections.listAll()).toEqual([]);
  });

  describe("PATCH", () => {
    let id: string;
    let before: unknown;

    beforeAll(async () => {
      const created = await env.api.request("POST", CONNECTIONS_PATH, { token: env.owner, body: { base_url: PUBLIC_BASE_URL, token: SOURCE_TOKEN } });
      // A public host name is accepted: the refusals are about where the URL points, not about URLs.
      expect(created.status).toBe(201);
      expect(created.body.base_url).toBe(PUBLIC_BASE_URL);
      id = created.body.id;
      before = created.body;
    });

    test.each(REFUSED)("PATCH refuses base_url %s: 422 naming base_url", async (baseUrl) => {
      const response = await env.api.request("PATCH", `${CONNECTIONS_PATH}/${id}`, { token: env.owner, body: { base_url: baseUrl } });
      expectBaseUrlRefused(response);
    });

    test("the connection still points where it did", async () => {
      expect((await env.api.request("GET", `${CONNECTIONS_PATH}/${id}`, { token: env.owner })).body).toEqual(before);
      expect((await env.api.request("GET", CONNECTIONS_PATH, { token: env.owner })).body.data).toHaveLength(1);
    });
  });
});

describe("the local default (allowLoopbackSources: true)", () => {
  const env = useOwnerApi("acct-ssrf-local");

  test.each(["http://127.0.0.1:1", "http://localhost:1", "http://[::1]:1"])("accepts the loopback base_url %s", async (baseUrl) => {
    const response = await env.api.request("POST", CONNECTIONS_PATH, { token: env.owner, body: { base_url: baseUrl, token: SOURCE_TOKEN } });
    expect(response.status, response.text).toBe(201);
  });

  test.each(REFUSED_EVEN_LOCALLY)("still refuses %s: 422 naming base_url", async (baseUrl) => {
    const post = await env.api.request("POST", CONNECTIONS_PATH, { token: env.owner, body: { base_url: baseUrl, token: SOURCE_TOKEN } });
    expectBaseUrlRefused(post);
  });

  test("and a PATCH to them is refused too", async () => {
    const created = await env.api.request("POST", CONNECTIONS_PATH, { token: env.owner, body: { base_url: "http://127.0.0.1:1", token: SOURCE_TOKEN } });
    for (const baseUrl of REFUSED_EVEN_LOCALLY) {
      expectBaseUrlRefused(await env.api.request("PATCH", `${CONNECTIONS_PATH}/${created.body.id}`, { token: env.owner, body: { base_url: baseUrl } }));
    }
    expect((await env.api.request("GET", `${CONNECTIONS_PATH}/${created.body.id}`, { token: env.owner })).body.base_url).toBe("http://127.0.0.1:1");
  });
});

describe("connect-time check: a loopback base_url stored by a permissive service is refused by a strict one", () => {
  let local: ApiHarness;
  let cloud: ApiHarness;
  let source: SourceServer;
  let connectionId: string;
  const account = "acct-ssrf-connect";

  beforeAll(async () => {
    source = await startSourceServer(crmSource(() => ({ pipelines: [pipelineRecord()], users: [], contacts: [], leads: [] }), { token: SOURCE_TOKEN }));
    local = await createApiHarness({ allowLoopbackSources: true });
    // Same table, same token key; only the loopback setting differs.
    cloud = await createApiHarness({ allowLoopbackSources: false, shareStore: local.store });
    const created = await local.request("POST", CONNECTIONS_PATH, {
      token: await local.token(account),
      body: { base_url: source.baseUrl, token: SOURCE_TOKEN, rate_limit: 100 },
    });
    expect(created.status).toBe(201);
    connectionId = created.body.id;
    // The source works: the permissive service reaches it.
    const tested = await local.request("POST", `${CONNECTIONS_PATH}/${connectionId}/test`, { token: await local.token(account) });
    expect(tested.body).toMatchObject({ reachable: true, authenticated: true, pipelines_found: 1 });
    source.requests.length = 0;
  });
  afterAll(async () => {
    await cloud.close();
    await local.close();
    await source.close();
  });

  test("the strict service sees the same connection", async () => {
    const fetched = await cloud.request("GET", `${CONNECTIONS_PATH}/${connectionId}`, { token: await cloud.token(account) });
    expect(fetched.status).toBe(200);
    expect(fetched.body.base_url).toBe(source.baseUrl);
  });

  test("POST .../test: 200, not reachable, a detail saying the address is refused, and no request reached the source", async () => {
    const tested = await cloud.request("POST", `${CONNECTIONS_PATH}/${connectionId}/test`, { token: await cloud.token(account) });
    expect(tested.status).toBe(200);
    expect(tested.body).toEqual({
      reachable: false,
      authenticated: false,
      detail: expect.stringMatching(/address the service may not call.*loopback/),
    });
    expect(source.requests).toEqual([]);
  });

  test("a sync on the strict service fails without a request reaching the source", async () => {
    const started = await cloud.request("POST", `${CONNECTIONS_PATH}/${connectionId}/syncs`, { token: await cloud.token(account) });
    expect(started.status).toBe(202);
    const summary = await cloud.waitForRun(connectionId, started.body.id);
    expect(summary.status).toBe("failed");
    const pipelines = summary.entities.find((row) => row.entity === "pipelines");
    expect(pipelines).toMatchObject({
      status: "failed",
      pages: 0,
      error: "the service may not call this base URL: host 127.0.0.1 is a loopback address",
      failure: { rule: "source.base-url-allowed" },
    });
    expect(source.requests).toEqual([]);
  });
});
