import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { RuntimeConfigSchema } from "../../console/src/runtime-config";
import { readLocalRuntimeConfig, StartupError } from "../../lambdas/runtimes/local/local-runtime-config";
import { localRuntimeConfig } from "../../lambdas/runtimes/local/runtime-config-route";

const parse = (value: unknown) => v.safeParse(RuntimeConfigSchema, value);
const firstIssue = (value: unknown) => parse(value).issues?.[0]?.message;

describe("the console's runtime config (/config.json, docs/console.md 'Runtime config')", () => {
  it("what the local runtime serves parses: dev without OIDC, oidc with the issuer and client id", () => {
    expect(parse(localRuntimeConfig(undefined)).output).toEqual({ auth: { mode: "dev" } });
    expect(parse(localRuntimeConfig({ issuer: "http://127.0.0.1:4000", clientId: "crm-console" })).output).toEqual({
      auth: { mode: "oidc", issuer: "http://127.0.0.1:4000", clientId: "crm-console", scope: "openid profile email", token: "id_token" },
    });
  });

  it("oidc takes scope, token, audience and apiBaseUrl (its trailing slash dropped)", () => {
    const result = parse({
      auth: { mode: "oidc", issuer: "https://idp.example.com/realms/acme", clientId: "c", scope: "openid email", token: "access_token", audience: "api" },
      apiBaseUrl: "https://api.example.com/",
    });
    expect(result.success).toBe(true);
    expect(result.output).toMatchObject({ auth: { token: "access_token", audience: "api" }, apiBaseUrl: "https://api.example.com" });
  });

  it("a config the page cannot trust is refused with the rule, never read as dev", () => {
    expect(firstIssue({ auth: { mode: "oidc", issuer: "https://idp.example.com" } })).toMatch(/clientId/);
    expect(firstIssue({ auth: { mode: "oidc", issuer: "not a url", clientId: "c" } })).toBe("auth.issuer must be a URL");
    expect(firstIssue({ auth: { mode: "oidc", issuer: "https://idp.example.com", clientId: "c", scope: "email" } })).toBe("auth.scope must include openid");
    expect(firstIssue({ auth: { mode: "oidc", issuer: "https://idp.example.com", clientId: "c", token: "code" } })).toBe("auth.token must be id_token or access_token");
    expect(firstIssue({ auth: { mode: "sso" } })).toBe("auth.mode must be dev or oidc");
    // Strict: a dev config with OIDC settings beside it is a mistake, not a dev config.
    expect(parse({ auth: { mode: "dev", issuer: "https://idp.example.com" } }).success).toBe(false);
    expect(parse({}).success).toBe(false);
  });

  it("the local runtime needs OIDC_ISSUER and OIDC_CLIENT_ID together", () => {
    expect(() => readLocalRuntimeConfig({ OIDC_ISSUER: "http://127.0.0.1:4000" })).toThrow(StartupError);
    expect(() => readLocalRuntimeConfig({ OIDC_CLIENT_ID: "crm-console" })).toThrow(/go together/);
    expect(readLocalRuntimeConfig({ OIDC_ISSUER: "http://127.0.0.1:4000", OIDC_CLIENT_ID: "crm-console" })).toMatchObject({
      OIDC_ISSUER: "http://127.0.0.1:4000",
      OIDC_CLIENT_ID: "crm-console",
    });
  });
});
