/** The statuses whose Location the guarded fetch follows. */
export const REDIRECT_STATUSES: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);

/** One request of a redirect chain. The body is buffered so a 307/308 can send it again. */
export interface Hop {
  readonly url: URL;
  readonly method: string;
  readonly headers: Headers;
  readonly body: ArrayBuffer | null;
}

const BODY_HEADERS = ["content-encoding", "content-language", "content-location", "content-type", "content-length"];
/** Credentials that must not follow a redirect to another origin (as the Fetch standard does). */
const CREDENTIAL_HEADERS = ["authorization", "proxy-authorization", "cookie"];

/**
 * The request a redirect leads to, per the Fetch standard: 303 (and 301/302
 * after a POST) becomes a bodiless GET; a change of origin (scheme, host or
 * port) drops the credentials, for the rest of the chain.
 */
export function nextHop(current: Hop, status: number, location: URL): Hop {
  const headers = new Headers(current.headers);
  let { method, body } = current;
  const becomesGet =
    ((status === 301 || status === 302) && method === "POST") ||
    (status === 303 && method !== "GET" && method !== "HEAD");
  if (becomesGet) {
    method = "GET";
    body = null;
    for (const name of BODY_HEADERS) headers.delete(name);
  }
  if (location.origin !== current.url.origin) {
    for (const name of CREDENTIAL_HEADERS) headers.delete(name);
  }
  return { url: location, method, headers, body };
}
