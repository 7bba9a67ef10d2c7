import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { decodeJwt } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { issueSessionToken } from "../../lambdas/runtimes/local/local-token-issuer";
import { ensureConsoleBuilt } from "../../lambdas/runtimes/local/console-build";
import { DEV_SIGN_IN_PATH } from "../../lambdas/runtimes/local/dev-sign-in";
import { CONNECTIONS_PATH, createApiHarness, type ApiHarness } from "../support/api-harness";

/** The local API server's console routes: the built page and the development sign-in, beside the API. */
describe("local API server: console assets and development sign-in", () => {
  let api: ApiHarness;

  beforeAll(async () => {
    await ensureConsoleBuilt();
    api = await createApiHarness();
  }, 120_000);
  afterAll(async () => api?.close());

  const signIn = (body: unknown, headers: Record<string, string> = { "content-type": "application/json" }) =>
    fetch(`${api.url}${DEV_SIGN_IN_PATH}`, { method: "POST", headers, body: typeof body === "string" ? body : JSON.stringify(body) });

  it("serves every built asset with its content type and the console's security headers", async () => {
    const page = await fetch(`${api.url}/`);
    const html = await page.text();
    expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(page.headers.get("cache-control")).toBe("no-cache");
    expect(page.headers.get("x-content-type-options")).toBe("nosniff");
    const assets = [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((match) => match[1]!);
    expect(assets.some((path) => path.endsWith(".js"))).toBe(true);
    expect(assets.some((path) => path.endsWith(".css"))).toBe(true);
    for (const path of assets) {
      const asset = await fetch(`${api.url}${path}`);
      expect(asset.status).toBe(200);
      const type = path.endsWith(".js") ? "text/javascript; charset=utf-8" : path.endsWith(".svg") ? "image/svg+xml" : "text/css; charset=utf-8";
      expect(asset.headers.get("content-type"), path).toBe(type);
      expect(asset.headers.get("content-security-policy")).not.toContain("unsafe-inline");
      expect(asset.headers.get("cache-control")).toContain("immutable");
    }
  });

  it("never serves a file outside the build folder", async () => {
    for (const path of ["/assets/..%2f..%2fpackage.json", "/assets/..%2f..%2f..%2fpackage.json", "/assets/%2e%2e/%2e%2e/%2e%2e/package.json", "/assets/%2e%2e/%2e%2e/package.json", "/assets/..%5c..%5cpackage.json", "/assets/%00", "/assets/nope.js"]) {
      const response = await fetch(`${api.url}${path}`);
      expect(response.status, path).toBe(404);
      expect(await response.text(), path).not.toContain("crm-custom-integration");
    }
  });

  it("leaves the API and unknown paths to the gateway as before", async () => {
    expect((await fetch(`${api.url}/api/v1/openapi.json`)).headers.get("content-type")).toBe("application/json");
    const unknown = await fetch(`${api.url}/nowhere`);
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({ message: "Not Found" });
    expect((await fetch(`${api.url}/`, { method: "POST" })).status).toBe(404);
  });

  it("dev sign-in mints the token npm run token mints: same claims, and the API accepts it", async () => {
    const response = await signIn({ workspace: "acme", role: "owner" });
    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toBe("no-store");
    const { token } = (await response.json()) as { token: string };
    const cli = decodeJwt(await issueSessionToken({ key: api.signingKey, account: "acme", role: "owner" }));
    const minted = decodeJwt(token);
    for (const claim of ["iss", "aud", "sub", "business_account_id", "role"]) expect(minted[claim], claim).toEqual(cli[claim]);
    expect(minted.exp! - minted.iat!).toBe(cli.exp! - cli.iat!);
    expect((await api.request("GET", CONNECTIONS_PATH, { token })).status).toBe(200);

    const rop = (await (await signIn({ workspace: "acme", role: "ROP" })).json()) as { token: string };
    expect((await api.request("GET", CONNECTIONS_PATH, { token: rop.token })).status).toBe(403);
  });

  it("dev sign-in with an email: the token carries it (trimmed), and each email is its own member", async () => {
    const mint = async (email: string) => decodeJwt(((await (await signIn({ workspace: "acme", role: "MOP", email })).json()) as { token: string }).token);
    const anna = await mint(" anna@example.com ");
    const boris = await mint("boris@example.com");
    expect(anna.email).toBe("anna@example.com");
    expect(anna.sub).toMatch(/^local-mop-[0-9a-f]{8}$/);
    expect(boris.sub).not.toBe(anna.sub);
    expect((await mint("ANNA@example.com")).sub).toBe(anna.sub);
    // Blank is no email at all; an email the API would not use is refused, naming the field.
    expect((await mint("")).sub).toBe("local-mop");
    const long = await signIn({ workspace: "acme", role: "MOP", email: `${"x".repeat(250)}@b.cde` });
    expect(long.status).toBe(422);
    expect(((await long.json()) as { error: { field: string } }).error.field).toBe("email");
  });

  it("dev sign-in refuses bad input with a 4xx naming the field and rule, never a token", async () => {
    const badRole = await signIn({ workspace: "acme", role: "admin" });
    expect(badRole.status).toBe(422);
    expect(await badRole.json()).toEqual({
      error: { code: "invalid_field", message: "role: must be one of owner, ROP, MOP", field: "role", rule: "must be one of owner, ROP, MOP" },
    });
    const noWorkspace = await signIn({ workspace: "  ", role: "owner" });
    expect(noWorkspace.status).toBe(422);
    expect(((await noWorkspace.json()) as { error: { field: string } }).error.field).toBe("workspace");
    expect((await signIn("{not json")).status).toBe(400);
    expect((await signIn("[]")).status).toBe(400);
    // A cross-site form post cannot mint a token: only JSON is read.
    expect((await signIn("workspace=acme&role=owner", { "content-type": "application/x-www-form-urlencoded" })).status).toBe(415);
    expect((await fetch(`${api.url}${DEV_SIGN_IN_PATH}`)).status).toBe(405);
  });

  it("the development sign-in is local only: no AWS code imports it or the local server that routes to it", async () => {
    const root = fileURLToPath(new URL("../../", import.meta.url));
    const offenders: string[] = [];
    const walk = async (dir: string): Promise<void> => {
      for (const entry of await readdir(join(root, dir), { withFileTypes: true })) {
        const path = `${dir}/${entry.name}`;
        if (entry.isDirectory()) {
          if (path !== "lambdas/runtimes/local") await walk(path);
        } else if (/\.ts$/.test(entry.name) && /(dev-sign-in|api-gateway-server|console-assets)["']/.test(await readFile(join(root, path), "utf8"))) {
          offenders.push(path);
        }
      }
    };
    await walk("lib");
    await walk("lambdas");
    expect(offenders).toEqual([]);
  });
});
