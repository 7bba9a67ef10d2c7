import { createHash } from "node:crypto";
import * as v from "valibot";
import { DEFAULT_RATE_LIMIT } from "../core/limits";
import { CreateConnectionSchema, parseFields } from "./connection-input";
import { parseWithBaseUrl, sourceBaseUrl } from "./connection-operations";
import type { OnboardingDeps } from "./onboarding-deps";
import { callPipelines, type ConnectionTestResult } from "./test-connection";

/** POST .../connections/test: what the owner typed in the new-connection form, not stored. The same rules as creating it. */
export const DraftTestSchema = v.pick(CreateConnectionSchema, ["base_url", "token", "rate_limit"]);

/**
 * Where a workspace's tests of unsaved connections take their rate-limit slots: one place per workspace (it has no
 * connection id yet), named by a hash so that no workspace id, whatever its length, reaches a key.
 */
export function draftLimiterKey(account: string): string {
  return `draft-test-${createHash("sha256").update(account).digest("hex").slice(0, 32)}`;
}

/**
 * The test call against what was typed, before it is saved: the body is checked as creating the connection checks
 * it (the same 422s, the same base_url policy: no loopback, private or metadata address), then the same live request
 * as a stored connection's test, through the same SSRF-guarded client. Nothing is stored, and the token is in no
 * answer or log line.
 */
export async function testDraftConnection(
  deps: Pick<OnboardingDeps, "baseUrls" | "source" | "limiter" | "sleep">,
  account: string,
  body: Record<string, unknown>,
): Promise<ConnectionTestResult> {
  const input = parseWithBaseUrl(deps, body, () => parseFields(DraftTestSchema, body));
  const baseUrl = sourceBaseUrl(deps, input.base_url);
  return callPipelines(deps, { limiterKey: draftLimiterKey(account), rateLimit: input.rate_limit ?? DEFAULT_RATE_LIMIT, baseUrl, token: input.token });
}
