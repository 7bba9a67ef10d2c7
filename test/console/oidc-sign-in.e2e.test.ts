import { createHash } from "node:crypto";
import type { Page, Request } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startLoopbackOidcProvider, type LoopbackOidcProvider } from "../support/loopback-oidc-provider";
import { shot } from "./screenshots";
import { startConsoleHarness, type ConsoleHarness } from "./console-harness";
import { expectAccessible } from "./expect-accessible";

const CLIENT_ID = "crm-console";

/**
 * The console in `oidc` mode (as in AWS) against a loopback OpenID provider,
 * with the local API configured with that issuer, as the JWT authorizer is
 * configured with jwtIssuer and jwtAudience.
 */
describe("owner's console, OIDC sign-in (authorization code with PKCE) against a loopback provider", { timeout: 60_000 }, () => {
  let provider: LoopbackOidcProvider;
  let harness: ConsoleHarness;
  let page: Page;
  const requests: Request[] = [];

  beforeAll(async () => {
    provider = await startLoopbackOidcProvider({
      clientId: CLIENT_ID,
      user: { sub: "owner-1", business_account_id: "acme", role: "owner" },
    });
    harness = await startConsoleHarness({ oidc: { issuer: provider.issuer, clientId: CLIENT_ID } });
  }, 120_000);

  afterAll(async () => {
    await harness?.close();
    await provider?.close();
  });

  it("serves /config.json in oidc mode with the issuer and client id, and lets the page's CSP reach the issuer", async () => {
    const config = await fetch(`${harness.url}/config.json`);
    expect(await config.json()).toEqual({ auth: { mode: "oidc", issuer: provider.issuer, clientId: CLIENT_ID } });
    const csp = (await fetch(`${harness.url}/`)).headers.get("content-security-policy") ?? "";
    expect(csp).toContain(`connect-src 'self' ${provider.issuer}`);
  });

  it("never offers the dev sign-in in oidc mode: no workspace or role field, no request to /dev/sign-in, and the route is gone", async () => {
    page = await harness.browser.newPage();
    page.setDefaultTimeout(20_000);
    page.on("request", (request) => requests.push(request));
    await page.goto(`${harness.url}/#/connections`);
    await page.getByRole("button", { name: "Sign in with your identity provider" }).waitFor();
    expect(await page.getByLabel("Workspace").count()).toBe(0);
    expect(await page.getByLabel("Role").count()).toBe(0);
    await expectAccessible(page, "OIDC sign-in");
    await shot(page, "sign-in-oidc");
    const devSignIn = await fetch(`${harness.url}/dev/sign-in`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ workspace: "acme", role: "owner" }),
    });
    expect(devSignIn.status).toBe(404);
  });

  it("signs in by authorization code with PKCE: S256 challenge out, verifier in the code exchange, the ID token kept in memory and sent as Bearer", async () => {
    // Keyboard: the button has focus by Tab from the heading.
    await page.getByRole("button", { name: "Sign in with your identity provider" }).press("Enter");
    await page.getByRole("heading", { name: "CRM connections", level: 1 }).waitFor();
    await page.getByText("No connections yet.").waitFor();

    expect(provider.authorizeRequests).toHaveLength(1);
    const authorize = provider.authorizeRequests[0]!.query;
    expect(authorize["response_type"]).toBe("code");
    expect(authorize["client_id"]).toBe(CLIENT_ID);
    expect(authorize["redirect_uri"]).toBe(`${harness.url}/`);
    expect(authorize["code_challenge_method"]).toBe("S256");
    expect(authorize["code_challenge"]).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(authorize["scope"]?.split(" ")).toContain("openid");
    expect(authorize["state"]).toBeTruthy();

    expect(provider.tokenRequests.map((request) => request.outcome)).toEqual(["issued"]);
    const exchange = provider.tokenRequests[0]!.form;
    expect(exchange["grant_type"]).toBe("authorization_code");
    const verifier = exchange["code_verifier"] ?? "";
    expect(verifier.length).toBeGreaterThanOrEqual(43);
    expect(createHash("sha256").update(verifier).digest("base64url")).toBe(authorize["code_challenge"]);

    // Every API request carries the provider's ID token; the API (configured with the issuer) accepted it.
    const [idToken] = provider.issuedIdTokens;
    const apiRequests = requests.filter((request) => new URL(request.url()).pathname.startsWith("/api/"));
    expect(apiRequests.length).toBeGreaterThan(0);
    for (const request of apiRequests) expect(await request.headerValue("authorization")).toBe(`Bearer ${idToken}`);
    expect(requests.some((request) => request.url().includes("/dev/sign-in"))).toBe(false);

    // In memory only: nothing in storage or cookies (the PKCE state is gone after the callback), no code in the address bar.
    expect(await page.evaluate<number>("localStorage.length + sessionStorage.length")).toBe(0);
    expect(await page.evaluate<string>("document.cookie")).toBe("");
    expect(page.url()).not.toContain("code=");
    expect(await page.locator(".who").textContent()).toContain("acme · owner");
  });

  it("the session is in memory, not a cookie: the same API request without the page's token is refused 401", async () => {
    // The owner's controls are there: the API took the token's workspace and role.
    await page.getByRole("link", { name: "New connection" }).waitFor();
    const response = await page.evaluate<number>(`fetch("/api/v1/crm/custom/connections").then((r) => r.status)`);
    expect(response).toBe(401);
  });

  it("a 401 sends the owner back to the provider's sign-in (never the dev one)", async () => {
    await page.route("**/api/v1/**", (route) => route.fulfill({ status: 401, contentType: "application/json", body: '{"message":"Unauthorized"}' }));
    await page.getByRole("link", { name: "CRM connections" }).click();
    await page.evaluate(`location.hash = "#/connections/none"`);
    await page.getByText("Your session ended").waitFor();
    await page.getByRole("button", { name: "Sign in with your identity provider" }).waitFor();
    expect(await page.getByLabel("Workspace").count()).toBe(0);
    await page.unroute("**/api/v1/**");
  });

  it("a reload ends the session: the token was only in memory", async () => {
    await page.reload();
    await page.getByRole("button", { name: "Sign in with your identity provider" }).waitFor();
  });
});
