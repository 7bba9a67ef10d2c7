import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/*
 * What both runtimes serve the console with: the local onboarding server
 * (lambdas/runtimes/local/console-assets.ts) and CloudFront in AWS (lib/console-hosting.ts).
 * Node-side, not part of the page's bundle; lib/ may import it (it is not the local runtime).
 */

/** Where `npm run build` writes the console (console/dist). */
export const CONSOLE_DIST_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "dist");

/** The page's security headers: a CSP without any inline or eval script, no framing, no sniffing, no referrer. */
export const CONSOLE_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "content-security-policy":
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
};

/**
 * The CSP with origins added to connect-src: the identity provider's issuer
 * (the page fetches its discovery document, keys and token endpoint itself)
 * and any further ones an identity provider needs.
 */
export function consoleContentSecurityPolicy(connectOrigins: readonly string[]): string {
  return CONSOLE_SECURITY_HEADERS["content-security-policy"]!.split(";")
    .map((part) => part.trim())
    .map((directive) => (directive.startsWith("connect-src ") ? [directive, ...connectOrigins].join(" ") : directive))
    .join("; ");
}
