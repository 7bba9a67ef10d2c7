import { Agent, fetch as undiciFetch } from "undici";
import { SourceHardError, SyncError } from "../../../domain/core/errors";
import { sourceBaseUrlAllowed } from "../../../domain/source-contract/rules/failure-rules";
import { checkHost, type HostPolicyOptions } from "./host-policy";
import { createPinnedLookup, resolveAllAddresses, type ResolveAll } from "./pinned-lookup";
import { SourceAddressRefusedError } from "../../../domain/source-contract/source-address-refused-error";

export interface GuardedFetchOptions {
  /** Lets 127.0.0.0/8, ::1 and localhost through: the local runtime only, never the cloud. */
  readonly allowLoopback: boolean;
  /** Resolves every address of a host name; the system resolver by default (tests inject one). */
  readonly lookup?: ResolveAll;
}

/**
 * A fetch that reaches only allowed addresses. Before the request the URL's
 * host is checked: an IP literal in any notation, localhost and metadata
 * names. At connect time every address a DNS name resolves to is checked, and
 * the socket connects only to those checked addresses (the connector's
 * `lookup` returns them), so DNS rebinding between check and connect cannot
 * happen.
 *
 * A redirect is never followed, whatever `redirect` the caller asks for: the
 * 3xx response is returned as it is, for the caller to report (a followed
 * redirect could carry the token to another host; see docs/source-client.md).
 * So the one URL checked here is the only one ever requested.
 *
 * A refused address throws SourceAddressRefusedError; a URL with another
 * scheme or with credentials throws SourceHardError. The caller's signal is honoured.
 */
export function createGuardedFetch(options: GuardedFetchOptions): typeof fetch {
  const policy: HostPolicyOptions = { allowLoopback: options.allowLoopback };
  const lookup = createPinnedLookup(options.lookup ?? resolveAllAddresses, policy);
  const agent = new Agent({ connect: { lookup } });

  async function guardedFetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
    // Checked before a Request is built: Request refuses credentials with an error that quotes them.
    const url = new URL(input instanceof Request ? input.url : String(input));
    assertTargetAllowed(url, policy);
    const request = new Request(input, init);
    const { signal } = request;
    const body = request.body === null ? null : await request.arrayBuffer();
    signal.throwIfAborted();
    try {
      const response = await undiciFetch(url, {
        method: request.method,
        headers: [...request.headers],
        body,
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

  return guardedFetch;
}

/** The scheme, credential and host rules. */
function assertTargetAllowed(url: URL, policy: HostPolicyOptions): void {
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new SourceHardError(`URL scheme ${url.protocol} is not http or https`, { rule: sourceBaseUrlAllowed.id });
  }
  if (url.username !== "" || url.password !== "") {
    throw new SourceHardError("URL must not contain a user name or password", { rule: sourceBaseUrlAllowed.id });
  }
  const host = checkHost(url.hostname, policy);
  if (!host.ok) throw new SourceAddressRefusedError(`host ${url.hostname} is ${host.reason}`);
}

function syncErrorCause(error: unknown): SyncError | null {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && typeof current === "object" && current !== null; depth += 1) {
    if (current instanceof SyncError) return current;
    current = (current as { cause?: unknown }).cause;
  }
  return null;
}
