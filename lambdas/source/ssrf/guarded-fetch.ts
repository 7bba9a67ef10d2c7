import { Agent, fetch as undiciFetch } from "undici";
import { SourceHardError, SyncError } from "../../core/errors";
import { checkHost, type HostPolicyOptions } from "./host-policy";
import { createPinnedLookup, resolveAllAddresses, type ResolveAll } from "./pinned-lookup";
import { type Hop, nextHop, REDIRECT_STATUSES } from "./redirect-hop";
import { SourceAddressRefusedError } from "./source-address-refused-error";

export interface GuardedFetchOptions {
  /** Lets 127.0.0.0/8, ::1 and localhost through: the local runtime only, never the cloud. */
  readonly allowLoopback: boolean;
  /** Resolves every address of a host name; the system resolver by default (tests inject one). */
  readonly lookup?: ResolveAll;
  /** Redirects followed before giving up with a SourceHardError. */
  readonly maxRedirects?: number;
}

export const DEFAULT_MAX_REDIRECTS = 5;

/**
 * A fetch that reaches only allowed addresses. Before each request (the first
 * and every redirect target) the URL's host is checked: an IP literal in any
 * notation, localhost and metadata names. At connect time every address a DNS
 * name resolves to is checked, and the socket connects only to those checked
 * addresses (the connector's `lookup` returns them), so DNS rebinding between
 * check and connect cannot happen. Redirects are followed here, never by the
 * transport, whatever `redirect` the caller asks for (`"error"` refuses them).
 *
 * A refused address throws SourceAddressRefusedError; too many redirects or a
 * broken Location throws SourceHardError. The caller's signal is honoured.
 */
export function createGuardedFetch(options: GuardedFetchOptions): typeof fetch {
  const policy: HostPolicyOptions = { allowLoopback: options.allowLoopback };
  const maxRedirects = options.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
  const lookup = createPinnedLookup(options.lookup ?? resolveAllAddresses, policy);
  const agent = new Agent({ connect: { lookup } });

  async function send(hop: Hop, signal: AbortSignal): Promise<Response> {
    try {
      const response = await undiciFetch(hop.url, {
        method: hop.method,
        headers: [...hop.headers],
        body: hop.body,
        redirect: "manual",
        signal,
        dispatcher: agent,
      });
      // undici's Response is the platform's class in all but name.
      return response as unknown as Response;
    } catch (error) {
      // fetch wraps the lookup's refusal as TypeError("fetch failed", { cause }).
      throw syncErrorCause(error) ?? error;
    }
  }

  async function guardedFetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
    const request = new Request(input, init);
    const { signal } = request;
    let hop: Hop = {
      url: new URL(request.url),
      method: request.method,
      headers: new Headers(request.headers),
      body: request.body === null ? null : await request.arrayBuffer(),
    };
    for (let redirects = 0; ; redirects += 1) {
      signal.throwIfAborted();
      assertTargetAllowed(hop.url, policy, redirects > 0);
      const response = await send(hop, signal);
      const location = REDIRECT_STATUSES.has(response.status) ? response.headers.get("location") : null;
      if (location === null) return response;
      discardBody(response);
      if (request.redirect === "error") throw new SourceHardError(`HTTP ${response.status} redirect is not allowed`);
      if (redirects >= maxRedirects) throw new SourceHardError(`more than ${maxRedirects} redirects`);
      let target: URL;
      try {
        target = new URL(location, hop.url);
      } catch {
        throw new SourceHardError(`HTTP ${response.status} redirect has an invalid Location`);
      }
      hop = nextHop(hop, response.status, target);
    }
  }

  return guardedFetch;
}

/** The scheme, credential and host rules, on the first URL and every redirect target. */
function assertTargetAllowed(url: URL, policy: HostPolicyOptions, redirected: boolean): void {
  const what = redirected ? "redirect target" : "URL";
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new SourceHardError(`${what} scheme ${url.protocol} is not http or https`);
  }
  if (url.username !== "" || url.password !== "") {
    throw new SourceHardError(`${what} must not contain a user name or password`);
  }
  const host = checkHost(url.hostname, policy);
  if (!host.ok) {
    throw new SourceAddressRefusedError(`${redirected ? "redirect to " : ""}host ${url.hostname} is ${host.reason}`);
  }
}

function syncErrorCause(error: unknown): SyncError | null {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && typeof current === "object" && current !== null; depth += 1) {
    if (current instanceof SyncError) return current;
    current = (current as { cause?: unknown }).cause;
  }
  return null;
}

/** Frees the connection of a redirect response; its body is never read. */
function discardBody(response: Response): void {
  response.body?.cancel().catch(() => undefined);
}
