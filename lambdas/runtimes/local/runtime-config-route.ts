import type { IncomingMessage, ServerResponse } from "node:http";
import type { LocalOidcSettings } from "./oidc-token-verifier";

/** The console's runtime config (docs/console.md, "Runtime config"; parsed by console/src/runtime-config.ts). */
export const RUNTIME_CONFIG_PATH = "/config.json";

export function localRuntimeConfig(oidc: LocalOidcSettings | undefined): unknown {
  return oidc === undefined ? { auth: { mode: "dev" } } : { auth: { mode: "oidc", issuer: oidc.issuer, clientId: oidc.clientId } };
}

/** GET/HEAD /config.json: the dev sign-in, or the OIDC issuer when OIDC_ISSUER is set. False for any other request. */
export function serveRuntimeConfig(request: IncomingMessage, response: ServerResponse, oidc: LocalOidcSettings | undefined): boolean {
  const method = request.method ?? "GET";
  if (method !== "GET" && method !== "HEAD") return false;
  if (new URL(request.url ?? "/", "http://localhost").pathname !== RUNTIME_CONFIG_PATH) return false;
  const body = JSON.stringify(localRuntimeConfig(oidc));
  response.writeHead(200, { "content-type": "application/json", "cache-control": "no-cache", "x-content-type-options": "nosniff" });
  response.end(method === "HEAD" ? undefined : body);
  return true;
}
