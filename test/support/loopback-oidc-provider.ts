import { createHash, randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, SignJWT, type JWK } from "jose";

/**
 * A minimal OpenID Connect provider on 127.0.0.1 for tests: discovery, JWKS,
 * an authorization endpoint that signs in a fixed user at once (no login
 * form: the test plays an already signed-in browser) and a token endpoint
 * that hands out an RS256 ID token only for the code it issued and only with
 * the PKCE verifier whose S256 challenge came with that code. Every request is
 * recorded, so a test can check what the client sent.
 */
export interface OidcUser {
  readonly sub: string;
  readonly business_account_id: string;
  readonly role: string;
}

export interface AuthorizeRequest {
  readonly query: Readonly<Record<string, string>>;
}

export interface TokenRequest {
  readonly form: Readonly<Record<string, string>>;
  /** What the provider answered: 200 with tokens, or 400 and why. */
  readonly outcome: "issued" | string;
}

export async function startLoopbackOidcProvider(options: { readonly clientId: string; readonly user: OidcUser }) {
  const { privateKey, publicKey } = await generateKeyPair("RS256");
  const kid = "loopback-1";
  const publicJwk: JWK = { ...(await exportJWK(publicKey)), kid, alg: "RS256", use: "sig" };
  const codes = new Map<string, { challenge: string; redirectUri: string; nonce: string | undefined }>();
  const authorizeRequests: AuthorizeRequest[] = [];
  const tokenRequests: TokenRequest[] = [];
  const issuedIdTokens: string[] = [];
  let issuer = "";

  const server = createServer((request, response) => {
    handle(request, response).catch(() => send(response, 500, { error: "server_error" }));
  });

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? "/", issuer);
    // The console fetches discovery, keys and the token from another origin.
    response.setHeader("access-control-allow-origin", "*");
    if (request.method === "OPTIONS") {
      response.writeHead(204, { "access-control-allow-headers": "content-type, accept, authorization", "access-control-allow-methods": "GET, POST" });
      return void response.end();
    }
    if (url.pathname === "/.well-known/openid-configuration") {
      return send(response, 200, {
        issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        jwks_uri: `${issuer}/jwks`,
        response_types_supported: ["code"],
        grant_types_supported: ["authorization_code"],
        code_challenge_methods_supported: ["S256"],
        subject_types_supported: ["public"],
        id_token_signing_alg_values_supported: ["RS256"],
        token_endpoint_auth_methods_supported: ["none"],
      });
    }
    if (url.pathname === "/jwks") return send(response, 200, { keys: [publicJwk] });
    if (url.pathname === "/authorize") {
      const query = Object.fromEntries(url.searchParams.entries());
      authorizeRequests.push({ query });
      const redirect = query["redirect_uri"];
      if (query["client_id"] !== options.clientId || !redirect || query["response_type"] !== "code" || query["code_challenge_method"] !== "S256" || !query["code_challenge"]) {
        return send(response, 400, { error: "invalid_request" });
      }
      const code = randomBytes(16).toString("base64url");
      codes.set(code, { challenge: query["code_challenge"], redirectUri: redirect, nonce: query["nonce"] });
      const back = new URL(redirect);
      back.searchParams.set("code", code);
      if (query["state"] !== undefined) back.searchParams.set("state", query["state"]);
      response.writeHead(302, { location: back.toString() });
      return void response.end();
    }
    if (url.pathname === "/token" && request.method === "POST") {
      const form = Object.fromEntries(new URLSearchParams(await readText(request)).entries());
      const refuse = (why: string) => {
        tokenRequests.push({ form, outcome: why });
        send(response, 400, { error: "invalid_grant", error_description: why });
      };
      const grant = codes.get(form["code"] ?? "");
      if (form["grant_type"] !== "authorization_code") return refuse("grant_type must be authorization_code");
      if (grant === undefined) return refuse("unknown or used code");
      codes.delete(form["code"] ?? "");
      if (form["client_id"] !== options.clientId) return refuse("wrong client_id");
      if (form["redirect_uri"] !== grant.redirectUri) return refuse("redirect_uri differs from the authorization request's");
      const verifier = form["code_verifier"] ?? "";
      if (createHash("sha256").update(verifier).digest("base64url") !== grant.challenge) return refuse("code_verifier does not match the S256 code_challenge");
      const now = Math.floor(Date.now() / 1000);
      const idToken = await new SignJWT({ ...options.user, ...(grant.nonce === undefined ? {} : { nonce: grant.nonce }) })
        .setProtectedHeader({ alg: "RS256", kid, typ: "JWT" })
        .setIssuer(issuer)
        .setAudience(options.clientId)
        .setSubject(options.user.sub)
        .setIssuedAt(now)
        .setExpirationTime(now + 3600)
        .sign(privateKey);
      issuedIdTokens.push(idToken);
      tokenRequests.push({ form, outcome: "issued" });
      return send(response, 200, { access_token: randomBytes(16).toString("base64url"), token_type: "Bearer", expires_in: 3600, id_token: idToken, scope: "openid" });
    }
    send(response, 404, { error: "not_found" });
  }

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    issuer,
    authorizeRequests,
    tokenRequests,
    issuedIdTokens,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
export type LoopbackOidcProvider = Awaited<ReturnType<typeof startLoopbackOidcProvider>>;

async function readText(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

function send(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { "content-type": "application/json", "cache-control": "no-store" });
  response.end(JSON.stringify(body));
}
