import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { claimDispatchedRuns } from "../../lambdas/sync/dispatch-syncs";
import { createSyncHarness, type SyncHarness } from "../support/sync-harness";

let harness: SyncHarness;
beforeEach(async () => {
  harness = await createSyncHarness();
});
afterEach(async () => {
  await harness.close();
});

describe("a batch's claims (ClaimRuns)", () => {
  test("one connection's failed claim does not fail the batch: the others are claimed, and the failed one holds no lock", async () => {
    const connections = [];
    for (let i = 0; i < 3; i += 1) connections.push(await harness.addConnection({ baseUrl: "http://127.0.0.1:9", token: "claims-token-1f" }));
    const failing = connections[1]!.id;
    const begin = harness.runs.begin.bind(harness.runs);
    harness.runs.begin = async (run, options) => {
      if (run.connectionId === failing) {
        const error = new Error("the table is unreachable");
        error.name = "StoreUnavailableError";
        throw error;
      }
      return begin(run, options);
    };
    const items = connections.map((connection) => ({ business_account_id: connection.business_account_id, connection_id: connection.id }));

    const { runs } = await claimDispatchedRuns(harness.startDeps, items);

    expect(runs.map((run) => run.connection_id)).toEqual([connections[0]!.id, connections[2]!.id]);
    expect(await harness.runs.lock(failing)).toBeNull();
    for (const run of runs) expect((await harness.runs.lock(run.connection_id))?.runId).toBe(run.run_id);
  });
});
