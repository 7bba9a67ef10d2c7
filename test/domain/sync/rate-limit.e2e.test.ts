import { afterAll, beforeAll, expect, test } from "vitest";
import { SLOT_LATE_MS } from "../../../lambdas/domain/core/limits";
import { RATE_WINDOW_MS } from "../../../lambdas/adapters/dynamodb/rate-limit/dynamodb-rate-limiter";
import { startChildSource } from "../../support/child-source-server";
import { createSyncHarness, type SyncHarness } from "../../support/sync-harness";

const TOKENS = ["rate-token-a-55f1", "rate-token-b-9e07"];
const RATE_LIMIT = 4;
let harness: SyncHarness;
let source: Awaited<ReturnType<typeof startChildSource>>;

/**
 * The most of `times` in any one-second window. Checked on the times the page
 * tasks sent their requests (harness.sent), not on arrival times at the
 * source: a request leaves at most SLOT_LATE_MS after its slot, on the
 * limiter's own clock, so this holds by the limiter's rule however slow or
 * loaded the machine is.
 */
function busiestSecond(times: readonly number[]): number {
  times = [...times].sort((a, b) => a - b);
  let busiest = 0;
  for (let i = 0, j = 0; i < times.length; i += 1) {
    while (times[i]! - times[j]! >= 1000) j += 1;
    busiest = Math.max(busiest, i - j + 1);
  }
  return busiest;
}

beforeAll(async () => {
  harness = await createSyncHarness();
  // The source runs in its own process, so its arrival times are not skewed by this busy test process.
  source = await startChildSource({ tokens: TOKENS, contacts: 700 });
});
afterAll(async () => {
  await source.close();
  await harness.close();
});

test("rate limit: two syncs of two connections to the same base URL each stay at or under their rate_limit in every one-second window", async () => {
  const [a, b] = await Promise.all(
    TOKENS.map((token, i) => harness.addConnection({ baseUrl: source.baseUrl, token, rateLimit: RATE_LIMIT, accountId: `rate-${i}` })),
  );
  const [runA, runB] = await Promise.all([harness.sync(a!), harness.sync(b!)]);
  expect(runA.status).toBe("succeeded");
  expect(runB.status).toBe("succeeded");

  const arrivals = await source.arrivals();
  // The premise of checking send times: a send is at most SLOT_LATE_MS (+1 ms of clock tick) after its
  // slot, and slots N apart are RATE_WINDOW_MS apart, so N + 1 sends never fit in one second.
  expect(SLOT_LATE_MS + 1).toBeLessThan(RATE_WINDOW_MS - 1000);
  for (const token of TOKENS) {
    // pipelines, users, 7 pages of contacts, leads, and three 404s from the optional endpoints.
    expect(arrivals.filter((arrival) => arrival.authorization === `Bearer ${token}`)).toHaveLength(1 + 1 + 7 + 1 + 3);
    const sent = harness.sent.filter((request) => request.baseUrl === source.baseUrl && request.token === token);
    expect(sent).toHaveLength(1 + 1 + 7 + 1 + 3);
    expect(busiestSecond(sent.map((request) => request.at))).toBeLessThanOrEqual(RATE_LIMIT);
  }
  // That two connections are throttled independently (neither waits for the other) is shown on a
  // virtual clock in test/adapters/dynamodb/rate-limit/dynamodb-rate-limiter.test.ts.
});
