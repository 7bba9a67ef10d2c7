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
import type { SourcePage } from "../core/ports/source-client";
import { realSleep } from "../core/ports/clock";
import { SourceAddressRefusedError } from "../source-contract/source-address-refused-error";
import { redactSecret } from "../source-contract/redact-secret";
import { rateLimited } from "../sync/rate-limited-source-client";
import { findConnection } from "./connection-operations";
import type { OnboardingDeps } from "./onboarding-deps";
import { ServiceBusyError } from "./onboarding-errors";

/** The spec's test call result. pipelines_found only on success. */
export const ConnectionTestResultSchema = v.object({
  reachable: v.boolean(),
  authenticated: v.boolean(),
  detail: v.string(),
  pipelines_found: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0))),
});
export type ConnectionTestResult = v.InferOutput<typeof ConnectionTestResultSchema>;

/**
 * The waits before the test call tries again when the service's own store or
 * rate limiter is busy (7.75 s in all, within the API's 29 s): a busy moment of
 * ours is retried, never reported as the source's.
 */
export const TEST_CALL_BUSY_WAITS_MS = [250, 500, 1_000, 2_000, 4_000] as const;

/** What the owner reads when the service stayed busy through those waits. */
export const SERVICE_BUSY_DETAIL =
  "The service was busy and sent no request to your CRM, so this says nothing about your CRM. Try the test again in a few seconds.";

/**
 * A live request for the first page of /pipelines, as the sync would make it:
 * the same guarded client, under the connection's rate limit. Never throws for
 * a source failure: the answer says what happened. When the service's own
 * store or rate limiter stays busy it throws ServiceBusyError (the API's 503):
 * nothing reached the source, so nothing is said of it.
 */
export async function testConnection(
  deps: Pick<OnboardingDeps, "connections" | "keySpace" | "cipher" | "source" | "limiter" | "sleep">,
  account: string,
  id: string,
): Promise<ConnectionTestResult> {
  const connection = await findConnection(deps, account, id);
  let token: string;
  try {
    token = await whileOursBusy(deps, () => deps.cipher.decrypt(connection.token_ciphertext, { businessAccountId: account, connectionId: id }));
  } catch (error) {
    if (!(error instanceof TokenDecryptionError)) throw error;
    return {
      reachable: false,
      authenticated: false,
      detail: "the stored source token cannot be decrypted for this connection; set it again with PATCH",
    };
  }
  return callPipelines(deps, { limiterKey: id, rateLimit: connection.rate_limit, baseUrl: connection.base_url, token });
}

/** What the test call sends: the source's first page of /pipelines, with this token, under the rate limit kept at `limiterKey`. */
export interface TestCallTarget {
  readonly limiterKey: string;
  readonly rateLimit: number;
  readonly baseUrl: string;
  readonly token: string;
}

/**
 * The live request itself, shared by the stored connection's test and the test of what the owner typed: the same
 * SSRF-guarded client under a rate limit, the same answers, the token redacted from every detail.
 */
export async function callPipelines(deps: Pick<OnboardingDeps, "source" | "limiter" | "sleep">, target: TestCallTarget): Promise<ConnectionTestResult> {
  const { token } = target;
  const source = rateLimited(deps.source, deps.limiter, { connectionId: target.limiterKey, rateLimit: target.rateLimit });
  let page: SourcePage;
  try {
    page = await whileOursBusy(deps, () => source.fetchPage({ baseUrl: target.baseUrl, token }, { path: "/pipelines", page: 1 }));
  } catch (error) {
    if (!(error instanceof SyncError)) throw error;
    const result = failedTest(error);
    // The client redacts what it takes from the response; this catches anything else that quotes the token.
    return { ...result, detail: redactSecret(result.detail, token) };
  }
  return {
    reachable: true,
    authenticated: true,
    detail: `GET /pipelines answered 200 with ${page.data.length} pipeline(s) on the first page${page.hasMore ? " (more pages follow)" : ""}`,
    pipelines_found: page.data.length,
  };
}

/** Busy errors of ours, raised before any request leaves: the store (DynamoDB, KMS) or a rate limiter starved of CPU. */
function oursBusy(error: unknown): boolean {
  return error instanceof StoreUnavailableError || error instanceof RateLimitSlotsStaleError;
}

/** Runs `work`, trying again after each of TEST_CALL_BUSY_WAITS_MS while our own store is busy; then ServiceBusyError. */
async function whileOursBusy<T>(deps: Pick<OnboardingDeps, "sleep">, work: () => Promise<T>): Promise<T> {
  const sleep = deps.sleep ?? realSleep;
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await work();
    } catch (error) {
      if (!oursBusy(error)) throw error;
      const wait = TEST_CALL_BUSY_WAITS_MS[attempt];
      if (wait === undefined) throw new ServiceBusyError(SERVICE_BUSY_DETAIL, { cause: error });
      await sleep(wait);
    }
  }
}

/** reachable: the source answered over HTTP at all; authenticated: it did not reject the token. */
function failedTest(error: SyncError): ConnectionTestResult {
  if (error instanceof SourceAuthError) {
    return { reachable: true, authenticated: false, detail: `the source rejected the token (401): ${error.detail}` };
  }
  // The same words as the failed entity of a sync: the detail already says what to do.
  if (error instanceof SourceRedirectError) return { reachable: true, authenticated: true, detail: error.detail };
  // Not reached: a network failure (transient, no HTTP status), or an address the guard refused to call.
  const notReached = (error instanceof SourceTransientError && error.httpStatus === null) || error instanceof SourceAddressRefusedError;
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
  return "the source answered something that is not a valid page";
}
