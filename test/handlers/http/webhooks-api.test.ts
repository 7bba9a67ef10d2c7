import { beforeAll, describe, expect, test } from "vitest";
import { WEBHOOK_ENDPOINTS_PER_WORKSPACE } from "../../../lambdas/domain/webhooks/webhook-limits";
import { createApiHarness, useOwnerApi, type ApiHarness } from "../../support/api-harness";

/** Issue 36 item 3: the owner registers the workspace's webhook endpoints; the secret is shown once. */
const WEBHOOKS = "/api/v1/crm/custom/webhooks";
const URL_OK = "http://127.0.0.1:9/hooks";
const env = useOwnerApi("acct-hooks");

async function register(api: ApiHarness, owner: string, body: Record<string, unknown> = { url: URL_OK, event_types: ["run.finished"] }) {
  return api.request("POST", WEBHOOKS, { token: owner, body });
}

describe("registering endpoints", () => {
  let created: { id: string; secret: string };
  beforeAll(async () => {
    const response = await register(env.api, env.owner, { url: URL_OK, event_types: ["run.finished", "changes.committed", "run.finished"], description: "Ops channel" });
    expect(response.status, response.text).toBe(201);
    created = response.body;
  });

  test("POST answers 201 with the endpoint and its secret (shown this once); repeated event types are kept once", async () => {
    const listed = await env.api.request("GET", WEBHOOKS, { token: env.owner });
    expect(created).toMatchObject({ url: URL_OK, event_types: ["run.finished", "changes.committed"], description: "Ops channel", secret: expect.stringMatching(/^whsec_[A-Za-z0-9_-]{43}$/) });
    expect(listed.body.data).toEqual([{ id: created.id, url: URL_OK, event_types: ["run.finished", "changes.committed"], description: "Ops channel", created_at: expect.any(String), updated_at: expect.any(String) }]);
  });

  test("the secret is never in a response afterwards (list, get, deliveries, delete), nor in a log line or the stored item", async () => {
    const before = env.api.responses.length;
    await env.api.request("GET", WEBHOOKS, { token: env.owner });
    await env.api.request("GET", `${WEBHOOKS}/${created.id}`, { token: env.owner });
    await env.api.request("GET", `${WEBHOOKS}/${created.id}/deliveries`, { token: env.owner });
    const later = env.api.responses.slice(before).join("\n");
    const secretBody = created.secret.slice("whsec_".length);
    expect(later).not.toContain(secretBody.slice(0, 12));
    expect(JSON.stringify(env.api.logger.lines)).not.toContain(secretBody.slice(0, 12));
    const stored = await env.api.sync.adapters.webhooks.getEndpoint("acct-hooks", created.id);
    expect(JSON.stringify(stored)).not.toContain(secretBody.slice(0, 12));
    expect(await env.api.cipher.decrypt(stored!.secret_ciphertext, { businessAccountId: "acct-hooks", connectionId: `webhook:${created.id}` })).toBe(created.secret);
  });

  test("rotate answers a new secret, once; the stored ciphertext now decrypts to it and not to the old one", async () => {
    const rotated = await env.api.request("POST", `${WEBHOOKS}/${created.id}/rotate`, { token: env.owner });
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(created.secret);
    const stored = await env.api.sync.adapters.webhooks.getEndpoint("acct-hooks", created.id);
    expect(await env.api.cipher.decrypt(stored!.secret_ciphertext, { businessAccountId: "acct-hooks", connectionId: `webhook:${created.id}` })).toBe(rotated.body.secret);
  });

  test.each([
    [{ url: URL_OK }, "event_types", "is required"],
    [{ url: URL_OK, event_types: [] }, "event_types", "must be a non-empty list of run.finished, audit.finished, connection.stale, changes.committed"],
    [{ url: URL_OK, event_types: ["run.started"] }, "event_types.0", "must be a non-empty list of run.finished, audit.finished, connection.stale, changes.committed"],
    [{ url: URL_OK, event_types: "run.finished" }, "event_types", "must be a non-empty list of run.finished, audit.finished, connection.stale, changes.committed"],
    [{ event_types: ["run.finished"] }, "url", "is required"],
    [{ url: "   ", event_types: ["run.finished"] }, "url", "must not be empty"],
    [{ url: `https://hooks.example.com/${"a".repeat(2048)}`, event_types: ["run.finished"] }, "url", "must be at most 2048 characters"],
    [{ url: "ftp://hooks.example.com/", event_types: ["run.finished"] }, "url", "url must be an absolute http or https URL"],
    [{ url: "https://user:pw@hooks.example.com/", event_types: ["run.finished"] }, "url", "url must not contain a user name or password"],
    [{ url: URL_OK, event_types: ["run.finished"], description: "two\nlines" }, "description", "must be one line of text"],
    [{ url: URL_OK, event_types: ["run.finished"], description: "é".repeat(201) }, "description", "must be at most 200 characters"],
    [{ url: URL_OK, event_types: ["run.finished"], secret: "whsec_mine" }, "secret", expect.any(String)],
  ])("a body breaking a rule is a 422 naming the field and rule (%#)", async (body, field, rule) => {
    const response = await register(env.api, env.owner, body);
    expect(response.status, response.text).toBe(422);
    expect(response.body.error).toMatchObject({ code: "invalid_field", field, rule });
  });

  test("a description of exactly 200 characters (four-byte ones) is accepted", async () => {
    const response = await register(env.api, env.owner, { url: URL_OK, event_types: ["audit.finished"], description: "😀".repeat(200) });
    expect(response.status, response.text).toBe(201);
    expect((await env.api.request("DELETE", `${WEBHOOKS}/${response.body.id}`, { token: env.owner })).status).toBe(204);
  });

  test(`a workspace has at most ${WEBHOOK_ENDPOINTS_PER_WORKSPACE} endpoints: the next is a 409, and deleting one makes room`, async () => {
    const api = env.api;
    const owner = await api.token("acct-hooks-limit");
    const ids: string[] = [];
    for (let i = 0; i < WEBHOOK_ENDPOINTS_PER_WORKSPACE; i += 1) ids.push((await register(api, owner)).body.id);
    expect((await register(api, owner)).status).toBe(409);
    expect((await api.request("DELETE", `${WEBHOOKS}/${ids[0]}`, { token: owner })).status).toBe(204);
    expect((await register(api, owner)).status).toBe(201);
  });
});

describe("endpoint URLs pass the same SSRF guard as source URLs", () => {
  test.each(["http://169.254.169.254/latest", "http://10.0.0.1/hooks", "http://192.168.1.10/", "http://[fd00:ec2::254]/", "http://[::ffff:127.0.0.1]/"])(
    "%s is refused even where loopback is allowed (422 naming url)",
    async (url) => {
      const response = await register(env.api, env.owner, { url, event_types: ["run.finished"] });
      expect(response.status).toBe(422);
      expect(response.body.error).toMatchObject({ field: "url", rule: expect.stringMatching(/^url points to /) });
    },
  );

  test("the cloud setting: loopback is refused and http is refused, https to a public name is accepted", async () => {
    const cloud = await createApiHarness({ allowLoopbackSources: false });
    try {
      const owner = await cloud.token("acct-hooks-cloud");
      expect((await register(cloud, owner, { url: "https://127.0.0.1/hooks", event_types: ["run.finished"] })).body.error).toMatchObject({ field: "url", rule: "url points to a loopback address" });
      expect((await register(cloud, owner, { url: "https://localhost/hooks", event_types: ["run.finished"] })).status).toBe(422);
      expect((await register(cloud, owner, { url: "http://hooks.example.com/in", event_types: ["run.finished"] })).body.error).toMatchObject({ field: "url", rule: "url must be an https URL" });
      expect((await register(cloud, owner, { url: "https://hooks.example.com/in", event_types: ["run.finished"] })).status).toBe(201);
    } finally {
      await cloud.close();
    }
  });
});

describe("tenancy and roles", () => {
  let id: string;
  beforeAll(async () => {
    id = (await register(env.api, env.owner, { url: URL_OK, event_types: ["connection.stale"] })).body.id;
  });

  test("another workspace cannot see, rotate, list the deliveries of, or delete the endpoint: 404, and it stays", async () => {
    const other = await env.api.token("acct-hooks-other");
    expect((await env.api.request("GET", WEBHOOKS, { token: other })).body.data).toEqual([]);
    for (const [method, path] of [["GET", `${WEBHOOKS}/${id}`], ["GET", `${WEBHOOKS}/${id}/deliveries`], ["POST", `${WEBHOOKS}/${id}/rotate`], ["DELETE", `${WEBHOOKS}/${id}`]] as const) {
      const response = await env.api.request(method, path, { token: other });
      expect(response.status, `${method} ${path}`).toBe(404);
      expect(response.text).not.toContain("whsec_");
    }
    expect((await env.api.request("GET", `${WEBHOOKS}/${id}`, { token: env.owner })).status).toBe(200);
  });

  test.each(["ROP", "MOP"] as const)("%s gets 403 on every webhook route, and changes nothing", async (role) => {
    const token = await env.api.token("acct-hooks", role);
    for (const [method, path] of [["POST", WEBHOOKS], ["GET", WEBHOOKS], ["GET", `${WEBHOOKS}/${id}`], ["GET", `${WEBHOOKS}/${id}/deliveries`], ["POST", `${WEBHOOKS}/${id}/rotate`], ["DELETE", `${WEBHOOKS}/${id}`]] as const) {
      const response = await env.api.request(method, path, { token, ...(method === "POST" ? { body: { url: URL_OK, event_types: ["run.finished"] } } : {}) });
      expect(response.status, `${method} ${path}`).toBe(403);
      expect(response.text).not.toContain("whsec_");
    }
    expect((await env.api.request("GET", `${WEBHOOKS}/${id}`, { token: env.owner })).status).toBe(200);
  });

  test.each([["not a uuid", "not-a-uuid"], ["2000 characters", "A".repeat(2000)], ["a uuid never issued", "00000000-0000-0000-0000-000000000000"]])("an id that names no endpoint is a 404: %s", async (_label, unknown) => {
    expect((await env.api.request("GET", `${WEBHOOKS}/${unknown}`, { token: env.owner })).status).toBe(404);
    expect((await env.api.request("DELETE", `${WEBHOOKS}/${unknown}`, { token: env.owner })).status).toBe(404);
  });

  test("a deleted endpoint is gone: 404 on get and deliveries, absent from the list", async () => {
    const gone = (await register(env.api, env.owner)).body.id;
    expect((await env.api.request("DELETE", `${WEBHOOKS}/${gone}`, { token: env.owner })).status).toBe(204);
    expect((await env.api.request("GET", `${WEBHOOKS}/${gone}`, { token: env.owner })).status).toBe(404);
    expect((await env.api.request("GET", `${WEBHOOKS}/${gone}/deliveries`, { token: env.owner })).status).toBe(404);
    expect((await env.api.request("GET", WEBHOOKS, { token: env.owner })).body.data.map((e: { id: string }) => e.id)).not.toContain(gone);
  });
});
