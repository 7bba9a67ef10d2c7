import * as v from "valibot";
import {
  RateLimitSlotsStaleError,
  SourceAuthError,
  SourceNotImplementedError,
  SourceRedirectError,
  SourceThrottledError,
  SourceTransientError,
  StoreUnavailableError,
  SyncError,
  TokenDecryptionError,
} from "../core/errors";
import { SourceAddressRefusedError } from "../source-contract/source-address-refused-error";
import { redactSecret } from "../source-contract/redact-secret";
import { rateLimited } from "../sync/rate-limited-source-client";
import { findConnection } from "./connection-operations";
import type { OnboardingDeps } from "./onboarding-deps";

/** The spec's test call result. pipelines_found only on success. */
export const ConnectionTestResultSchema = v.object({
  reachable: v.boolean(),
  authenticated: v.boolean(),
  detail: v.string(),
  pipelines_found: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0))),
});
export type ConnectionTestResult = v.InferOutput<typeof ConnectionTestResultSchema>;

/**
 * A live request for the first page of /pipelines, as the sync would make it:
 * the same guarded client, under the connection's rate limit. Never throws for
 * a source failure: the answer says what happened.
 */
export async function testConnection(
  deps: Pick<OnboardingDeps, "connections" | "keySpace" | "cipher" | "source" | "limiter">,
  account: string,
  id: string,
): Promise<ConnectionTestResult> {
  const connection = await findConnection(deps, account, id);
  let token: string;
  try {
    token = await deps.cipher.decrypt(connection.token_ciphertext, { businessAccountId: account, connectionId: id });
  } catch (error) {
    if (!(error instanceof TokenDecryptionError)) throw error;
    return {
      reachable: false,
      authenticated: false,
      detail: "the stored source token cannot be decrypted for this connection; set it again with PATCH",
    };
  }
  const source = rateLimited(deps.source, deps.limiter, { connectionId: id, rateLimit: connection.rate_limit });
  try {
    const page = await source.fetchPage({ baseUrl: connection.base_url, token }, { path: "/pipelines", page: 1 });
    return {
      reachable: true,
      authenticated: true,
      detail: `GET /pipelines answered 200 with ${page.data.length} pipeline(s) on the first page${page.hasMore ? " (more pages follow)" : ""}`,
      pipelines_found: page.data.length,
    };
  } catch (error) {
    // A busy store of ours (the rate limiter's table) says nothing about the source: the API's 503.
    if (!(error instanceof SyncError) || error instanceof StoreUnavailableError) throw error;
    const result = failedTest(error);
    // The client redacts what it takes from the response; this catches anything else that quotes the token.
    return { ...result, detail: redactSecret(result.detail, token) };
  }
}

/** reachable: the source answered over HTTP at all; authenticated: it did not reject the token. */
function failedTest(error: SyncError): ConnectionTestResult {
  if (error instanceof SourceAuthError) {
    return { reachable: true, authenticated: false, detail: `the source rejected the token (401): ${error.detail}` };
  }
  // The same words as the failed entity of a sync: the detail already says what to do.
  if (error instanceof SourceRedirectError) return { reachable: true, authenticated: true, detail: error.detail };
  // Not reached: a network failure (transient, no HTTP status), an address the guard refused to call, or no
  // request sent at all (the service could not take a rate-limit slot in time: ours, not the source's).
  const notReached =
    (error instanceof SourceTransientError && error.httpStatus === null) ||
    error instanceof SourceAddressRefusedError ||
    error instanceof RateLimitSlotsStaleError;
  const reachable = !notReached;
  return {
    reachable,
    // 403 means the token is known but not allowed to read /pipelines: not an accepted token either.
    authenticated: reachable && error.httpStatus !== 403,
    detail: `${describe(error)}: ${error.detail}`,
  };
}

function describe(error: SyncError): string {
  if (error instanceof SourceNotImplementedError) return "GET /pipelines answered 404 (a required endpoint is not implemented)";
  if (error instanceof SourceThrottledError) return "the source is throttling (429)";
  if (error instanceof SourceTransientError) {
    return error.httpStatus === null ? "the source could not be reached" : `the source failed (${error.httpStatus})`;
  }
  if (error instanceof SourceAddressRefusedError) return "the base URL points to an address the service may not call";
  if (error instanceof RateLimitSlotsStaleError) return "the service is busy and sent no request to the source; try the test again";
  return "the source answered something that is not a valid page";
}
