import { afterAll, beforeAll, expect, test } from "vitest";
import { contactRecord, pipelineRecord, userRecord } from "../builders/source-records";
import { crmSource } from "../support/crm-source";
import { startSourceServer, type RecordedRequest, type SourceServer } from "../support/source-server";
import { createSyncHarness, type SyncHarness } from "../support/sync-harness";

const TOKENS = ["rate-token-a-55f1", "rate-token-b-9e07"];
let harness: SyncHarness;
let server: SourceServer;

const stamp = (minute: number) => new Date(Date.UTC(2026, 4, 1, 0, minute)).toISOString();
const data = {
  pipelines: [pipelineRecord()],
  users: [userRecord()],
  contacts: Array.from({ length: 700 }, (_, i) => contactRecord({ id: `c${i}`, updated_at: stamp(i) })),
  leads: [],
};

/** The most requests the source saw in any one-second window. */
function busiestSecond(requests: readonly RecordedRequest[]): number {
  const times = requests.map((request) => request.receivedAt).sort((a, b) => a - b);
  let busiest = 0;
  for (let i = 0, j = 0; i < times.length; i += 1) {
    while (times[i]! - times[j]! >= 1000) j += 1;
    busiest = Math.max(busiest, i - j + 1);
  }
  return busiest;
}

beforeAll(async () => {
  harness = await createSyncHarness();
  // Two tokens: two connections of two workspaces pointing at the same source base URL.
  server = await startSourceServer((request) => {
    const token = TOKENS.find((candidate) => request.headers.authorization === `Bearer ${candidate}`) ?? "none";
    return crmSource(() => data, { token })(request);
  });
});
afterAll(async () => {
  await server.close();
  await harness.close();
});

test("rate limit: two syncs of two connections to the same base URL each stay at or under their rate_limit in every one-second window, measured by the source", async () => {
  const [a, b] = await Promise.all(
    TOKENS.map((token, i) => harness.addConnection({ baseUrl: server.baseUrl, token, rateLimit: 4, accountId: `rate-${i}` })),
  );
  const [runA, runB] = await Promise.all([harness.sync(a!), harness.sync(b!)]);
  expect(runA.status).toBe("succeeded");
  expect(runB.status).toBe("succeeded");

  const byConnection = TOKENS.map((token) => server.requests.filter((request) => request.headers.authorization === `Bearer ${token}`));
  for (const requests of byConnection) {
    expect(requests.length).toBe(1 + 1 + 7 + 1 + 3);
    expect(busiestSecond(requests)).toBeLessThanOrEqual(4);
  }
  // Throttled independently: together the source saw more than one connection's rate.
  expect(busiestSecond(server.requests)).toBeGreaterThan(4);
});
