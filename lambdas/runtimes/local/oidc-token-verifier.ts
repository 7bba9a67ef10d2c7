import { createRemoteJWKSet, jwtVerify, type JWTPayload } from "jose";
import { SessionTokenInvalidError } from "./local-token-issuer";

/**
 * An outside OIDC issuer the local runtime trusts besides its own key
 * (OIDC_ISSUER, OIDC_CLIENT_ID): the twin of the HTTP API's JWT authorizer
 * configured with jwtIssuer and jwtAudience. Keys come from the issuer's
 * discovered `jwks_uri`, as the authorizer fetches them.
 */
export interface LocalOidcSettings {
  readonly issuer: string;
  /** The console's client id: the accepted `aud` (the authorizer's jwtAudience). */
  readonly clientId: string;
}

/** API Gateway's JWT authorizer verifies RSA signatures only; so does its local twin. */
export const OIDC_TOKEN_ALGORITHMS = ["RS256"];

export function createOidcTokenVerifier(settings: LocalOidcSettings): (token: string) => Promise<JWTPayload> {
  let jwks: Promise<ReturnType<typeof createRemoteJWKSet>> | undefined;
  const keys = async () => {
    const response = await fetch(`${settings.issuer.replace(/\/+$/, "")}/.well-known/openid-configuration`);
    if (!response.ok) throw new Error(`OIDC discovery answered ${response.status}`);
    const discovery = (await response.json()) as { issuer?: unknown; jwks_uri?: unknown };
    if (discovery.issuer !== settings.issuer || typeof discovery.jwks_uri !== "string") {
      throw new Error("OIDC discovery names another issuer or no jwks_uri");
    }
    return createRemoteJWKSet(new URL(discovery.jwks_uri));
  };
  return async (token) => {
    // Discovery is retried after a failure (the provider may start after the runtime), cached after a success.
    const pending = (jwks ??= keys());
    pending.catch(() => {
      if (jwks === pending) jwks = undefined;
    });
    try {
      const { payload } = await jwtVerify(token, await pending, {
        algorithms: OIDC_TOKEN_ALGORITHMS,
        issuer: settings.issuer,
        audience: settings.clientId,
        requiredClaims: ["exp"],
      });
      return payload;
    } catch {
      // jose's errors carry the claims: none of it travels on.
      throw new SessionTokenInvalidError("bad signature");
    }
  };
}
