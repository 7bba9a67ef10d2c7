import { afterAll, beforeAll, expect, test } from "vitest";
import { startChildSource, type Arrival } from "../support/child-source-server";
import { createSyncHarness, type SyncHarness } from "../support/sync-harness";

const TOKENS = ["rate-token-a-55f1", "rate-token-b-9e07"];
const RATE_LIMIT = 4;
let harness: SyncHarness;
let source: Awaited<ReturnType<typeof startChildSource>>;

/** The most requests the source saw in any one-second window. */
function busiestSecond(arrivals: readonly Arrival[]): number {
  const times = arrivals.map((arrival) => arrival.at).sort((a, b) => a - b);
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

test("rate limit: two syncs of two connections to the same base URL each stay at or under their rate_limit in every one-second window, measured by the source", async () => {
  const [a, b] = await Promise.all(
    TOKENS.map((token, i) => harness.addConnection({ baseUrl: source.baseUrl, token, rateLimit: RATE_LIMIT, accountId: `rate-${i}` })),
  );
  const [runA, runB] = await Promise.all([harness.sync(a!), harness.sync(b!)]);
  expect(runA.status).toBe("succeeded");
  expect(runB.status).toBe("succeeded");

  const arrivals = await source.arrivals();
  const byConnection = TOKENS.map((token) => arrivals.filter((arrival) => arrival.authorization === `Bearer ${token}`));
  for (const requests of byConnection) {
    // pipelines, users, 7 pages of contacts, leads, and three 404s from the optional endpoints.
    expect(requests.length).toBe(1 + 1 + 7 + 1 + 3);
    expect(busiestSecond(requests)).toBeLessThanOrEqual(RATE_LIMIT);
  }
  // Throttled independently: together the source saw more than one connection's rate.
  expect(busiestSecond(arrivals)).toBeGreaterThan(RATE_LIMIT);
});
