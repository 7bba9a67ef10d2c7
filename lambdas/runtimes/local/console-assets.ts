import { readFile, stat } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import { extname, join, resolve, sep } from "node:path";
import { CONSOLE_DIST_DIR, CONSOLE_SECURITY_HEADERS, consoleContentSecurityPolicy } from "../../../console/site";

// The build's location and the security headers are the console's own (console/site.ts): CloudFront sends the same set.
export { CONSOLE_DIST_DIR, CONSOLE_SECURITY_HEADERS };

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".json": "application/json",
  ".map": "application/json",
  ".txt": "text/plain; charset=utf-8",
  ".woff2": "font/woff2",
};

/**
 * The headers with the OIDC issuer's origin added to connect-src: the page
 * itself fetches the issuer's discovery document, keys and token endpoint.
 */
export function consoleSecurityHeaders(oidcIssuer?: string): Readonly<Record<string, string>> {
  if (oidcIssuer === undefined) return CONSOLE_SECURITY_HEADERS;
  return { ...CONSOLE_SECURITY_HEADERS, "content-security-policy": consoleContentSecurityPolicy([new URL(oidcIssuer).origin]) };
}

/**
 * Serves the built console for GET/HEAD of `/`, `/index.html` and `/assets/*`
 * and answers true; anything else (the API, unknown paths) is left to the
 * caller and answers false. Only files under `distDir` are ever read.
 */
export async function serveConsoleAsset(
  request: IncomingMessage,
  response: ServerResponse,
  distDir: string = CONSOLE_DIST_DIR,
  oidcIssuer?: string,
): Promise<boolean> {
  const securityHeaders = consoleSecurityHeaders(oidcIssuer);
  const method = request.method ?? "GET";
  if (method !== "GET" && method !== "HEAD") return false;
  const pathname = new URL(request.url ?? "/", "http://localhost").pathname;
  const isPage = pathname === "/" || pathname === "/index.html";
  if (!isPage && !pathname.startsWith("/assets/")) return false;

  const root = resolve(distDir);
  let relative: string;
  try {
    relative = isPage ? "index.html" : decodeURIComponent(pathname.slice(1));
  } catch {
    return notFound(response);
  }
  const file = resolve(join(root, relative));
  // A `..` or an encoded slash that leads out of the build folder is a 404, never a read.
  if (!file.startsWith(root + sep) || relative.includes("\0")) return notFound(response);

  let body: Buffer;
  try {
    if (!(await stat(file)).isFile()) return notFound(response);
    body = await readFile(file);
  } catch {
    if (isPage) {
      response.writeHead(404, { "content-type": "text/plain; charset=utf-8", ...securityHeaders });
      response.end("The console is not built: run `npm run build` (npm start builds it when missing).\n");
      return true;
    }
    return notFound(response);
  }
  response.writeHead(200, {
    "content-type": CONTENT_TYPES[extname(file).toLowerCase()] ?? "application/octet-stream",
    "content-length": String(body.length),
    // Vite names assets by content hash: they never change under a name. The page itself must be fetched fresh.
    "cache-control": isPage ? "no-cache" : "public, max-age=31536000, immutable",
    ...securityHeaders,
  });
  response.end(method === "HEAD" ? undefined : body);
  return true;
}

function notFound(response: ServerResponse): true {
  response.writeHead(404, { "content-type": "application/json" });
  response.end(JSON.stringify({ message: "Not Found" }));
  return true;
}
