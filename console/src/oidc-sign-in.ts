import { InMemoryWebStorage, UserManager, WebStorageStateStore, type User } from "oidc-client-ts";
import { ROLES, signIn, type Role } from "./session";
import type { OidcAuth } from "./runtime-config";

/**
 * Sign-in at the workspace's identity provider: OpenID Connect authorization
 * code flow with PKCE (S256), by oidc-client-ts. The tokens stay in memory
 * (an InMemoryWebStorage user store); only the short-lived request state (the
 * PKCE verifier and nonce) sits in this tab's sessionStorage across the
 * redirect, because nothing in memory survives it, and the callback removes it.
 */
let manager: UserManager | null = null;
let tokenKind: OidcAuth["token"] = "id_token";

export function configureOidc(auth: OidcAuth): void {
  tokenKind = auth.token;
  manager = new UserManager({
    authority: auth.issuer,
    client_id: auth.clientId,
    // The page itself is the callback: the server serves one page.
    redirect_uri: `${location.origin}/`,
    post_logout_redirect_uri: `${location.origin}/`,
    response_type: "code",
    scope: auth.scope,
    ...(auth.audience === undefined ? {} : { extraQueryParams: { audience: auth.audience } }),
    userStore: new WebStorageStateStore({ store: new InMemoryWebStorage() }),
    stateStore: new WebStorageStateStore({ store: sessionStorage }),
    // No hidden iframes: the CSP allows no frames, and a session ends by signing in again.
    automaticSilentRenew: false,
    monitorSession: false,
    loadUserInfo: false,
  });
}

/** Off to the identity provider; `returnTo` is the hash route to land on after the callback. */
export async function startOidcSignIn(returnTo: string): Promise<void> {
  if (manager === null) throw new Error("OIDC is not configured");
  await manager.signinRedirect({ state: returnTo });
}

/** The page was loaded as the redirect URI (`?code=...&state=...` or `?error=...`). */
export function isOidcCallback(): boolean {
  const query = new URLSearchParams(location.search);
  return query.has("state") && (query.has("code") || query.has("error"));
}

/** The OIDC sign-in failed at the provider or in the code exchange: the message is shown on the sign-in page. */
export class OidcSignInError extends Error {
  override readonly name = "OidcSignInError";
}

/**
 * Completes the code exchange (the verifier goes to the token endpoint), keeps
 * the session in memory, drops `?code` from the address bar and returns the
 * hash route the owner left from.
 */
export async function completeOidcSignIn(): Promise<string> {
  if (manager === null) throw new Error("OIDC is not configured");
  let user: User;
  try {
    user = await manager.signinRedirectCallback();
  } catch (error) {
    throw new OidcSignInError(`Sign-in at the identity provider failed: ${(error as Error).message}`);
  } finally {
    history.replaceState(null, "", `${location.pathname}${location.hash}`);
  }
  const token = tokenKind === "access_token" ? user.access_token : user.id_token;
  if (!token) throw new OidcSignInError(`The identity provider returned no ${tokenKind}.`);
  const workspace = user.profile["business_account_id"];
  const role = user.profile["role"];
  signIn({
    token,
    workspace: typeof workspace === "string" ? workspace : "",
    role: (ROLES as readonly unknown[]).includes(role) ? (role as Role) : "ROP",
  });
  const returnTo = typeof user.state === "string" && user.state.startsWith("#/") ? user.state : "#/connections";
  return returnTo;
}

/** Forgets the tokens this page holds (in memory only); the provider's own session is left alone. */
export async function forgetOidcUser(): Promise<void> {
  await manager?.removeUser();
}
