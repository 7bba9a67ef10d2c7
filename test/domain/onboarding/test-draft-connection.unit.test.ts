import { describe, expect, test } from "vitest";
import { createHttpSourceClient } from "../../../lambdas/adapters/source-http/http-source-client";
import { baseUrlPolicy } from "../../../lambdas/adapters/source-http/ssrf/base-url-policy";
import { createGuardedFetch } from "../../../lambdas/adapters/source-http/ssrf/guarded-fetch";
import type { ResolveAll } from "../../../lambdas/adapters/source-http/ssrf/pinned-lookup";
import { draftLimiterKey, testDraftConnection } from "../../../lambdas/domain/onboarding/test-draft-connection";

/**
 * The test of what the owner typed goes through the same SSRF guard as a stored connection's test: a host name
 * the base_url rules accept, whose DNS answer is a loopback or private address, is refused at connect time. DNS is
 * the one thing injected (a fake resolver); nothing is sent, so no server is needed.
 */
function deps(addresses: Readonly<Record<string, string>>) {
  const lookup: ResolveAll = async (hostname) => [{ address: addresses[hostname] ?? "203.0.113.9", family: 4 }];
  const keys: string[] = [];
  return {
    keys,
    deps: {
      baseUrls: baseUrlPolicy({ allowLoopback: false }),
      source: createHttpSourceClient({ fetch: createGuardedFetch({ allowLoopback: false, lookup }), timeoutMs: 2_000 }),
      limiter: {
        acquire: async (key: string) => {
          keys.push(key);
          return Date.now();
        },
      },
    },
  };
}

describe("testDraftConnection", () => {
  test.each([
    ["loopback", "127.0.0.1"],
    ["a private address", "10.1.2.3"],
    ["the cloud metadata address", "169.254.169.254"],
  ])("the same SSRF guard: a host name that resolves to %s is not reached", async (_what, address) => {
    const { deps: d } = deps({ "crm.customer.test": address });
    const result = await testDraftConnection(d, "acct-1", { base_url: "http://crm.customer.test:8080/api", token: "tok-draft-1234" });
    expect(result).toEqual({ reachable: false, authenticated: false, detail: expect.stringContaining("the base URL points to an address the service may not call") });
    expect(result.detail).not.toContain("tok-draft");
  });

  test("its rate-limit slots are the workspace's own: one key per workspace, named by a hash, never by the workspace id", async () => {
    expect(draftLimiterKey("acct-1")).toBe(draftLimiterKey("acct-1"));
    expect(draftLimiterKey("acct-1")).not.toBe(draftLimiterKey("acct-2"));
    const long = "a".repeat(5_000);
    expect(draftLimiterKey(long)).toMatch(/^draft-test-[0-9a-f]{32}$/);
    const { deps: d, keys } = deps({ "crm.customer.test": "127.0.0.1" });
    await testDraftConnection(d, long, { base_url: "http://crm.customer.test/", token: "tok-draft-1234" });
    expect(keys).toEqual([draftLimiterKey(long)]);
  });
});
