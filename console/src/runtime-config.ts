import * as v from "valibot";

/**
 * `/config.json`, fetched by the page before anything else: how the owner
 * signs in, and nothing secret. The local runtime serves `{ auth: { mode:
 * "dev" } }` (or the OIDC form when OIDC_ISSUER is set); in AWS the hosting
 * stack writes the OIDC form beside the page from the same deploy settings as
 * the API's JWT authorizer (docs/console.md, "Runtime config").
 */
const HttpUrl = (what: string) =>
  v.pipe(v.string(`${what} must be a string`), v.url(`${what} must be a URL`), v.regex(/^https?:\/\//, `${what} must be an http(s) URL`));

export const DevAuthSchema = v.strictObject({ mode: v.literal("dev") });

export const OidcAuthSchema = v.strictObject({
  mode: v.literal("oidc"),
  /** The identity provider's issuer, exactly as in the tokens' `iss` (the JWT authorizer's jwtIssuer). */
  issuer: HttpUrl("auth.issuer"),
  /** The console's client id at the identity provider (one of the authorizer's jwtAudience values). */
  clientId: v.pipe(v.string("auth.clientId must be a string"), v.nonEmpty("auth.clientId must not be empty")),
  /** Scopes asked for; `openid` is always among them. */
  scope: v.optional(v.pipe(v.string(), v.regex(/(^|\s)openid(\s|$)/, "auth.scope must include openid")), "openid profile email"),
  /**
   * Which token the API gets as Bearer. The ID token by default: its `aud` is the client id, which is what
   * the authorizer's jwtAudience names; `access_token` for an identity provider that puts the client id (or
   * the API's audience) and the workspace claims in its access tokens.
   */
  token: v.optional(v.picklist(["id_token", "access_token"], "auth.token must be id_token or access_token"), "id_token"),
  /** Sent as `audience` on the authorization request, for identity providers that need it for an API-scoped access token. */
  audience: v.optional(v.pipe(v.string(), v.nonEmpty("auth.audience must not be empty"))),
});

export const RuntimeConfigSchema = v.strictObject({
  auth: v.variant("mode", [DevAuthSchema, OidcAuthSchema], "auth.mode must be dev or oidc"),
  /** Where the onboarding API is; absent means this origin (the local runtime, or CloudFront routing /api/* to the API). */
  apiBaseUrl: v.optional(v.pipe(HttpUrl("apiBaseUrl"), v.transform((url) => url.replace(/\/+$/, "")))),
});

export type RuntimeConfig = v.InferOutput<typeof RuntimeConfigSchema>;
export type OidcAuth = v.InferOutput<typeof OidcAuthSchema>;

/** The config the page could not use: it says so and offers no sign-in at all (never falls back to dev). */
export class RuntimeConfigError extends Error {
  override readonly name = "RuntimeConfigError";
}

export async function loadRuntimeConfig(): Promise<RuntimeConfig> {
  let body: unknown;
  try {
    // The server sends it no-cache: a deploy that changes it reaches the next page load.
    const response = await fetch("/config.json", { headers: { accept: "application/json" } });
    if (!response.ok) throw new RuntimeConfigError(`/config.json answered ${response.status}`);
    body = await response.json();
  } catch (error) {
    if (error instanceof RuntimeConfigError) throw error;
    throw new RuntimeConfigError("/config.json could not be read as JSON");
  }
  const result = v.safeParse(RuntimeConfigSchema, body);
  if (!result.success) throw new RuntimeConfigError(`/config.json: ${result.issues[0].message}`);
  return result.output;
}
