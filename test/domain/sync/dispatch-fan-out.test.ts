import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { seededRandom } from "../../../bin/reference-source/prng";
import type { RunStore } from "../../../lambdas/domain/core/ports/run-store";
import { createLocalDispatch } from "../../../lambdas/runtimes/local/local-dispatch";
import { listDispatchPage } from "../../../lambdas/domain/sync/dispatch-tick";
import { startSync } from "../../../lambdas/domain/sync/start-sync";
import { leadRecord, pipelineRecord, userRecord } from "../../builders/source-records";
import { crmSource } from "../../support/crm-source";
import { startSourceServer, type SourceServer } from "../../support/source-server";
import { createSyncHarness, type SyncHarness } from "../../support/sync-harness";

const TOKEN = "fan-out-token-5c1e";
const data = { pipelines: [pipelineRecord()], users: [userRecord()], contacts: [], leads: [leadRecord({ id: "l1" })] };

let harness: SyncHarness;
let server: SourceServer;
/** Every run's first request (/pipelines) waits here until the test lets it through. */
let held: HeldRequests;

beforeEach(async () => {
  // Requests wait at the gate for as long as the test holds them: a time-out would retry one and count a second arrival.
  harness = await createSyncHarness({ sourceTimeoutMs: 10 * 60_000 });
  held = heldRequests();
  const serve = crmSource(() => data, { token: TOKEN });
  server = await startSourceServer(async (request) => {
    if (request.path === "/pipelines") await held.arrive();
    return serve(request);
  });
});
afterEach(async () => {
  held.releaseAll();
  await server.close();
  await harness.close();
});

async function addConnections(count: number) {
  const connections = [];
  for (let i = 0; i < count; i += 1) connections.push(await harness.addConnection({ baseUrl: server.baseUrl, token: TOKEN, accountId: `acct-${i % 3}` }));
  return connections;
}

function dispatchWithCap(maxConcurrentRuns: number) {
  return createLocalDispatch({
    startDeps: harness.startDeps,
    integrations: harness.engine.integrations,
    maxConcurrentRuns,
    timeScale: 0.01,
    logger: harness.logger,
  });
}

describe("schedule tick fan-out", () => {
  test("the cap on concurrent runs holds: with a cap of 2, a third run starts only once one of the first two has ended", async () => {
    await addConnections(6);
    const runs = trackRuns(harness.runs);
    const dispatch = dispatchWithCap(2);
    const tick = dispatch.tick();

    // With a cap of 2 the tick runs one child of a batch of 2, which holds both slots until both runs have ended:
    // let each batch go only once it has arrived whole, so at no moment can more than the cap be running.
    for (let arrived = 2; arrived <= 6; arrived += 2) {
      await held.arrived(arrived);
      expect(runs.current).toBeLessThanOrEqual(2);
      held.releaseOldest();
      held.releaseOldest();
    }
    held.releaseAll();
    expect((await tick).status).toBe("SUCCEEDED");
    expect(runs.maxConcurrent).toBe(2);
    expect(runs.finished).toEqual({ succeeded: 6, failed: 0 });
    await dispatch.stop();
  });

  test("a tick with more connections than the cap queues the rest, and every run completes", async () => {
    const connections = await addConnections(9);
    const runs = trackRuns(harness.runs);
    held.releaseAll();
    const dispatch = dispatchWithCap(3);
    expect((await dispatch.tick()).status).toBe("SUCCEEDED");
    expect(runs.maxConcurrent).toBeLessThanOrEqual(3);
    for (const connection of connections) {
      const [latest] = await harness.runs.list(connection.id, { limit: 1 });
      expect(latest?.status).toBe("succeeded");
    }
    expect(runs.finished).toEqual({ succeeded: 9, failed: 0 });
    await dispatch.stop();
  });

  test("never two runs of one connection at once under the fan-out: an overlapping tick and a manual sync skip the connections already running", async () => {
    const connections = await addConnections(3);
    const runs = trackRuns(harness.runs);
    const first = dispatchWithCap(3);
    const second = dispatchWithCap(3);
    const firstTick = first.tick();
    await held.arrived(3);

    // Every connection's run is held mid-run: a second tick claims nothing, a manual sync starts nothing.
    expect((await second.tick()).status).toBe("SUCCEEDED");
    for (const connection of connections) expect((await startSync(harness.startDeps, connection)).started).toBe(false);
    expect(held.count).toBe(3);

    held.releaseAll();
    expect((await firstTick).status).toBe("SUCCEEDED");
    expect(runs.maxPerConnection).toBe(1);
    expect(runs.begun).toBe(3);
    expect(runs.finished).toEqual({ succeeded: 3, failed: 0 });
    await first.stop();
    await second.stop();
  });

  test("the cap holds across overlapping ticks: a tick that starts while runs of an earlier tick are live gets only cap minus live children", async () => {
    // A cap of 20 is two children of a batch of 10. The first tick's 10 runs are held mid-run (this file's server);
    // the second tick's 20 connections are on a server of their own, so the test can let those runs go without the first's.
    const later = heldRequests();
    const serve = crmSource(() => data, { token: TOKEN });
    const laterServer = await startSourceServer(async (request) => {
      if (request.path === "/pipelines") await later.arrive();
      return serve(request);
    });
    try {
      const earlier = await addConnections(10);
      const runs = trackRuns(harness.runs);
      const dispatch = dispatchWithCap(20);
      const firstTick = dispatch.tick();
      await held.arrived(10);
      // Paused now, so the second tick lists only its own 20 (two whole batches); their live runs still count.
      for (const connection of earlier) await harness.connections.put({ ...connection, paused: true });
      for (let i = 0; i < 20; i += 1) await harness.addConnection({ baseUrl: laterServer.baseUrl, token: TOKEN, accountId: `acct-later-${i % 3}` });

      // 10 runs live under a cap of 20: the second tick gets (20 - 10) / 10 = 1 child, so its second batch of 10
      // starts only once its first has ended. Each of the first 10 arrivals is let through as it comes: the 11th
      // can arrive only after all 10 of them have finished.
      const secondTick = dispatch.tick();
      const finishedBefore = runs.finished.succeeded;
      for (let arrived = 1; arrived <= 10; arrived += 1) {
        await later.arrived(arrived);
        later.releaseOldest();
      }
      await later.arrived(11);
      expect(runs.finished.succeeded - finishedBefore).toBe(10);
      later.releaseAll();
      expect((await secondTick).status).toBe("SUCCEEDED");
      expect(runs.maxConcurrent).toBeLessThanOrEqual(20);

      held.releaseAll();
      expect((await firstTick).status).toBe("SUCCEEDED");
      expect(runs.finished).toEqual({ succeeded: 30, failed: 0 });
      await dispatch.stop();
    } finally {
      later.releaseAll();
      await laterServer.close();
    }
  }, 60_000);

  test("memory stays bounded over many ticks: the local tick engine keeps only the last tick's history", async () => {
    await addConnections(1);
    held.releaseAll();
    const dispatch = dispatchWithCap(2);
    for (let tick = 0; tick < 3; tick += 1) expect((await dispatch.tick()).status).toBe("SUCCEEDED");
    expect(dispatch.engine.list()).toHaveLength(1);
    await dispatch.stop();
  });

  test("the dispatch order is not always the same: each tick lists the connections in a fresh random order, paused ones left out", async () => {
    const connections = await addConnections(12);
    await harness.connections.put({ ...connections[0]!, paused: true });
    const ids = (random: () => number) =>
      listDispatchPage({ connections: harness.connections, logger: harness.logger }, null, random).then((page) =>
        page.batches.flatMap((batch) => batch.items.map((item) => item.connection_id)),
      );
    const one = await ids(seededRandom(1).next);
    const two = await ids(seededRandom(2).next);
    expect(one).not.toEqual(two);
    expect([...one].sort()).toEqual([...two].sort());
    expect(new Set(one)).toEqual(new Set(connections.slice(1).map((connection) => connection.id)));
  });
});

/** Requests held at a gate: `arrived(n)` resolves once n have arrived; released oldest first or all at once. */
type HeldRequests = ReturnType<typeof heldRequests>;
function heldRequests() {
  const waiting: (() => void)[] = [];
  const watchers: { n: number; resolve: () => void }[] = [];
  let count = 0;
  let open = false;
  return {
    get count() {
      return count;
    },
    arrive(): Promise<void> {
      count += 1;
      for (const watcher of watchers.filter((w) => w.n <= count)) watcher.resolve();
      if (open) return Promise.resolve();
      return new Promise<void>((resolve) => waiting.push(resolve));
    },
    arrived(n: number): Promise<void> {
      if (count >= n) return Promise.resolve();
      return new Promise<void>((resolve) => watchers.push({ n, resolve }));
    },
    releaseOldest: () => waiting.shift()?.(),
    releaseAll() {
      open = true;
      for (const release of waiting.splice(0)) release();
    },
  };
}

/** Runs as the run lock sees them: running from a begin that took the lock to its finish. */
function trackRuns(store: RunStore) {
  const running = new Map<string, number>();
  const state = { current: 0, maxConcurrent: 0, maxPerConnection: 0, begun: 0, finished: { succeeded: 0, failed: 0 } };
  const begin = store.begin.bind(store);
  const finish = store.finish.bind(store);
  store.begin = async (run, options) => {
    const result = await begin(run, options);
    if (result.started) {
      state.begun += 1;
      state.current += 1;
      state.maxConcurrent = Math.max(state.maxConcurrent, state.current);
      const mine = (running.get(run.connectionId) ?? 0) + 1;
      running.set(run.connectionId, mine);
      state.maxPerConnection = Math.max(state.maxPerConnection, mine);
    }
    return result;
  };
  store.finish = async (connectionId, runId, outcome) => {
    await finish(connectionId, runId, outcome);
    state.current -= 1;
    running.set(connectionId, (running.get(connectionId) ?? 1) - 1);
    state.finished[outcome.status === "succeeded" ? "succeeded" : "failed"] += 1;
  };
  return state;
}
