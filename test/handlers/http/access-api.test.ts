import { SignJWT, generateKeyPair } from "jose";
import { beforeAll, describe, expect, test } from "vitest";
import { issueSessionToken, LOCAL_AUDIENCE, LOCAL_ISSUER } from "../../../lambdas/runtimes/local/local-token-issuer";
import { ROUTES } from "../../../lambdas/handlers/http/routes";
import { CONNECTIONS_PATH, useOwnerApi } from "../../support/api-harness";

const env = useOwnerApi("acct-access");
let connectionId: string;
let runId: string;

beforeAll(async () => {
  // A source is not needed: the test call's outcome does not matter here, only who may make it.
  const created = await env.api.request("POST", CONNECTIONS_PATH, { token: env.owner, body: { base_url: "http://127.0.0.1:9", token: "access-src" } });
  connectionId = created.body.id;
  runId = (await env.api.request("POST", `${CONNECTIONS_PATH}/${connectionId}/syncs`, { token: env.owner })).body.id;
});

/** Each route with concrete values for its parameters; a body where one is needed. */
function concrete(routeKey: string, id: string) {
  const [method = "", template = ""] = routeKey.split(" ");
  const path = template.replace("{id}", id).replace("{runId}", runId).replace("{entity}", "leads").replace("{collection}", "leads").replace("{sourceUserId}", "user-1").replace("{recordId}", "lead-1");
  const body = method === "POST" && !path.endsWith("/test") && !path.endsWith("/syncs")
    ? { base_url: "http://127.0.0.1:9", token: "x" }
    : method === "PATCH"
      ? { rate_limit: 2 }
      : method === "PUT"
        ? { user_id: "member-1" }
        : undefined;
  return { method, path, body };
}
const routesWithId = ROUTES.filter((route) => route.routeKey.includes("{id}"));
const ownerRoutes = ROUTES.filter((route) => (route.access ?? "owner") === "owner");
const memberRoutes = ROUTES.filter((route) => route.access === "member");

describe("authentication", () => {
  async function unsigned(claims: Record<string, unknown>, alg: string): Promise<string> {
    const header = Buffer.from(JSON.stringify({ alg, typ: "JWT" })).toString("base64url");
    const payload = Buffer.from(JSON.stringify(claims)).toString("base64url");
    return `${header}.${payload}.`;
  }
  const claims = () => ({
    iss: LOCAL_ISSUER,
    aud: LOCAL_AUDIENCE,
    sub: "u1",
    business_account_id: "acct-access",
    role: "owner",
    exp: Math.floor(Date.now() / 1000) + 600,
  });

  test.each(ROUTES.map((route) => route.routeKey))("a missing session token is a 401 on %s", async (routeKey) => {
    const { method, path, body } = concrete(routeKey, connectionId);
    expect((await env.api.request(method, path, { body })).status).toBe(401);
  });

  test("an expired session token is a 401", async () => {
    const expired = await issueSessionToken({
      key: env.api.signingKey,
      account: "acct-access",
      role: "owner",
      now: new Date(Date.now() - 2 * 86_400_000),
      ttlSeconds: 60,
    });
    expect((await env.api.request("GET", CONNECTIONS_PATH, { token: expired })).status).toBe(401);
    expect((await env.api.request("GET", CONNECTIONS_PATH, { token: env.owner })).status).toBe(200);
  });

  test("a forged session token (signed by another key) is a 401", async () => {
    const { privateKey } = await generateKeyPair("ES256");
    const forged = await new SignJWT(claims()).setProtectedHeader({ alg: "ES256", kid: env.api.signingKey.kid }).sign(privateKey);
    expect((await env.api.request("GET", CONNECTIONS_PATH, { token: forged })).status).toBe(401);
  });

  test("an alg-none session token is a 401", async () => {
    expect((await env.api.request("GET", CONNECTIONS_PATH, { token: await unsigned(claims(), "none") })).status).toBe(401);
  });

  test("a session token for another audience is a 401", async () => {
    const other = await issueSessionToken({ key: env.api.signingKey, account: "acct-access", role: "owner", audience: "another-api" });
    expect((await env.api.request("GET", CONNECTIONS_PATH, { token: other })).status).toBe(401);
  });
});

describe("roles: only the owner", () => {
  test("the onboarding routes (the managers' links among them) are the owner's; the analytics routes are every role's, and only those", () => {
    expect(ownerRoutes.every((route) => route.routeKey.includes("/crm/custom/"))).toBe(true);
    expect(memberRoutes.map((route) => route.routeKey).every((key) => key.startsWith("GET /api/v1/analytics/"))).toBe(true);
    expect(ownerRoutes.map((route) => route.operationId)).toEqual(expect.arrayContaining(["listManagers", "linkManager", "unlinkManager"]));
    expect(memberRoutes).toHaveLength(4);
  });

  test.each(
    ownerRoutes.flatMap((route) => (["ROP", "MOP"] as const).map((role) => [role, route.routeKey] as const)),
  )("%s gets 403 on %s", async (role, routeKey) => {
    const token = await env.api.token("acct-access", role);
    const { method, path, body } = concrete(routeKey, connectionId);
    const response = await env.api.request(method, path, { token, body });
    expect(response.status).toBe(403);
    expect(response.body.error.code).toBe("forbidden");
  });

  test("ROP and MOP change nothing: the connection is untouched after their PATCH and DELETE", async () => {
    const rop = await env.api.token("acct-access", "ROP");
    await env.api.request("PATCH", `${CONNECTIONS_PATH}/${connectionId}`, { token: rop, body: { rate_limit: 99 } });
    await env.api.request("DELETE", `${CONNECTIONS_PATH}/${connectionId}`, { token: rop });
    await env.api.request("POST", `${CONNECTIONS_PATH}/${connectionId}/pause`, { token: rop });
    const still = await env.api.request("GET", `${CONNECTIONS_PATH}/${connectionId}`, { token: env.owner });
    expect(still.status).toBe(200);
    expect(still.body.rate_limit).not.toBe(99);
    expect(still.body.paused).toBe(false);
  });
});

describe("roles: the analytics routes", () => {
  test.each(memberRoutes.map((route) => route.routeKey))("ROP is never refused on %s: every row, every manager's records", async (routeKey) => {
    const { method, path } = concrete(routeKey, connectionId);
    const response = await env.api.request(method, `${path}${routeKey.endsWith("{collection}") ? "?user_id=user-1" : ""}`, { token: await env.api.token("acct-access", "ROP") });
    expect(response.status).not.toBe(403);
    // No record stored under lead-1 here: the one-record route answers 404; the others 200.
    expect(response.status).toBe(routeKey.endsWith("{recordId}") ? 404 : 200);
  });

  test.each(memberRoutes.filter((route) => route.routeKey.includes("{id}")).map((route) => route.routeKey))(
    "a MOP linked to no source user gets 403 with the sentence to ask the owner on %s",
    async (routeKey) => {
      const { method, path } = concrete(routeKey, connectionId);
      const response = await env.api.request(method, path, { token: await env.api.token("acct-access", "MOP", { email: "nobody@example.com" }) });
      expect(response.status).toBe(403);
      expect(response.body.error).toMatchObject({ code: "not_linked", message: expect.stringMatching(/ask the workspace owner to link you/i) });
    },
  );

  test("every role lists the workspace's connections", async () => {
    for (const role of ["owner", "ROP", "MOP"] as const) {
      const response = await env.api.request("GET", "/api/v1/analytics/connections", { token: await env.api.token("acct-access", role) });
      expect(response.status).toBe(200);
      expect(response.body.data.map((connection: { id: string }) => connection.id)).toContain(connectionId);
    }
  });
});

describe("tenant scope", () => {
  test.each(routesWithId.map((route) => route.routeKey))(
    "another workspace's connection id is a 404 on %s, exactly as an id that does not exist",
    async (routeKey) => {
      const intruder = await env.api.token("acct-intruder");
      const theirs = concrete(routeKey, connectionId);
      const nobody = concrete(routeKey, "00000000-0000-0000-0000-000000000000");
      const asIntruder = await env.api.request(theirs.method, theirs.path, { token: intruder, body: theirs.body });
      const unknown = await env.api.request(nobody.method, nobody.path, { token: env.owner, body: nobody.body });
      expect(asIntruder.status).toBe(404);
      expect(unknown.status).toBe(404);
      expect(asIntruder.body.error.code).toBe(unknown.body.error.code);
    },
  );

  test.each(
    memberRoutes.filter((route) => route.routeKey.includes("{id}")).flatMap((route) => (["ROP", "MOP"] as const).map((role) => [role, route.routeKey] as const)),
  )("another workspace's %s gets 404 on %s, exactly as for an id that does not exist", async (role, routeKey) => {
    const theirs = concrete(routeKey, connectionId);
    const response = await env.api.request(theirs.method, theirs.path, { token: await env.api.token("acct-intruder", role, { email: "anna@example.com" }) });
    expect(response.status).toBe(404);
    expect(response.body.error.code).toBe("not_found");
  });

  test("another workspace's connections are not listed to any of its roles", async () => {
    for (const role of ["owner", "ROP", "MOP"] as const) {
      const response = await env.api.request("GET", "/api/v1/analytics/connections", { token: await env.api.token("acct-intruder", role) });
      expect(response.body.data.map((connection: { id: string }) => connection.id)).not.toContain(connectionId);
    }
  });

  test("the intruder changed nothing", async () => {
    const still = await env.api.request("GET", `${CONNECTIONS_PATH}/${connectionId}`, { token: env.owner });
    expect(still.status).toBe(200);
    expect(still.body.rate_limit).not.toBe(2);
    expect(still.body.paused).toBe(false);
  });
});
