import { describe, expect, test } from "vitest";
import { CONNECTIONS_PATH, useOwnerApi } from "../../support/api-harness";
import { envelope } from "../../support/source-server";
import { useSourceServers } from "../../support/source-servers";

// Long enough for a 40-character prefix; '+', '/' and '=' make its URL-encoding differ from it.
const SOURCE_TOKEN = "sk_live+4eC39HqLyjWDarjtT1zdp7dc/Qx9Zr5mN8kVb2Wq=";
const env = useOwnerApi("acct-test-call");
const serve = useSourceServers("all");

async function connect(baseUrl: string): Promise<string> {
  const created = await env.api.request("POST", CONNECTIONS_PATH, { token: env.owner, body: { base_url: baseUrl, token: SOURCE_TOKEN } });
  expect(created.status).toBe(201);
  return created.body.id as string;
}

describe("redirects: the test call and the sync report the same detail, and follow nothing", () => {
  test.each([301, 302, 307, 308])(
    "a %i to another origin: the test call says where it points and to set base_url; one request, none to the target",
    async (status) => {
      const target = await serve(() => ({ json: envelope([{ id: "p1" }]) }));
      const source = await serve(() => ({ status, headers: { location: `${target.baseUrl}/v2` } }));
      const id = await connect(source.baseUrl);
      const tested = await env.api.request("POST", `${CONNECTIONS_PATH}/${id}/test`, { token: env.owner });
      expect(tested.status).toBe(200);
      expect(tested.body).toEqual({
        reachable: true,
        authenticated: true,
        detail: `the source answered ${status} to ${target.baseUrl}/v2; set base_url to the final address`,
      });
      expect(source.requests).toHaveLength(1);
      expect(target.requests).toHaveLength(0);
    },
  );

  test("a sync of a redirecting source fails its entities with the same detail, and nothing reaches the target", async () => {
    const target = await serve(() => ({ json: envelope([]) }));
    const source = await serve(() => ({ status: 302, headers: { location: `${target.baseUrl}/v2` } }));
    const id = await connect(source.baseUrl);
    const started = await env.api.request("POST", `${CONNECTIONS_PATH}/${id}/syncs`, { token: env.owner });
    expect(started.status).toBe(202);
    const summary = await env.api.waitForRun(id, started.body.id as string);
    const failed = summary.entities.filter((entity) => entity.status === "failed");
    expect(failed.length).toBeGreaterThan(0);
    for (const entity of failed) {
      expect(entity.error).toBe(`the source answered 302 to ${target.baseUrl}/v2; set base_url to the final address`);
      expect(entity.failure?.rule).toBe("source.no-redirect");
    }
    expect(source.requests.length).toBeGreaterThan(0);
    expect(target.requests).toHaveLength(0);
  });
});

describe("redaction: no 8+ character run of the token, its base64 or its URL-encoding reaches the test-call answer or the logs", () => {
  const base64 = Buffer.from(SOURCE_TOKEN).toString("base64");
  const base64url = Buffer.from(SOURCE_TOKEN).toString("base64url");
  const percent = encodeURIComponent(SOURCE_TOKEN);
  const fragments = [SOURCE_TOKEN.slice(0, 8), SOURCE_TOKEN.slice(20, 28), SOURCE_TOKEN.slice(32, 40), base64.slice(10, 18), base64url.slice(30, 38), percent.slice(0, 10)];

  test.each([
    ["the token's first 40 characters in a 401 body", { status: 401, json: { error: `unknown key ${SOURCE_TOKEN.slice(0, 40)}` } }],
    ["a middle 8-character run in a 403 body", { status: 403, json: { error: `scope missing for ${SOURCE_TOKEN.slice(20, 28)}` } }],
    ["its base64 in a 400 body", { status: 400, json: { error: `bad basic ${base64}` } }],
    ["its url-safe base64 in a 503 body", { status: 503, json: { error: `retry ${base64url}` } }],
    ["its URL-encoding in a 422 body", { status: 422, json: { error: `token=${percent}` } }],
    ["a run of it in the content-type of a 200 that is not JSON", { headers: { "content-type": `text/html; k=${SOURCE_TOKEN.slice(5, 45)}` }, body: "<html>" }],
    ["a run of it in a redirect's Location", { status: 302, headers: { location: `https://login.example.com/?t=${percent}` } }],
  ] as const)("%s", async (_name, reply) => {
    const source = await serve(() => reply);
    const id = await connect(source.baseUrl);
    const linesBefore = env.api.logger.lines.length;
    const tested = await env.api.request("POST", `${CONNECTIONS_PATH}/${id}/test`, { token: env.owner });
    expect(tested.status).toBe(200);
    expect(tested.body.detail).toContain("[redacted]");
    const logged = JSON.stringify(env.api.logger.lines.slice(linesBefore));
    for (const fragment of fragments) {
      expect(tested.text).not.toContain(fragment);
      expect(logged).not.toContain(fragment);
    }
  });
});
