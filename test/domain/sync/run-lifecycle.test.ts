import { beforeAll, describe, expect, test } from "vitest";
import { WATERMARK_SAFETY_MARGIN_SECONDS } from "../../../lambdas/domain/core/limits";
import type { RunStarter } from "../../../lambdas/domain/core/ports/run-starter";
import { createLocalDispatch } from "../../../lambdas/runtimes/local/local-dispatch";
import { newRunId } from "../../../lambdas/domain/sync/run-id";
import { SyncQueueUnavailableError } from "../../../lambdas/domain/core/errors";
import { startSync } from "../../../lambdas/domain/sync/start-sync";
import { leadRecord, pipelineRecord, userRecord } from "../../builders/source-records";
import { gate } from "../../support/gate";
import { useScriptedCrmSource } from "../../support/scripted-crm-source";
import { useSyncHarness } from "../../support/sync-harness";

const TOKEN = "lifecycle-token-93aa";
const harness = useSyncHarness();

const stamp = (minute: number) => new Date(Date.UTC(2026, 3, 1, 0, minute)).toISOString();
const leads = (count: number) => Array.from({ length: count }, (_, i) => leadRecord({ id: `l${i}`, updated_at: stamp(i) }));
const source = useScriptedCrmSource(TOKEN, () => ({ pipelines: [pipelineRecord()], users: [userRecord()], contacts: [], leads: leads(30) }));

describe("one run at a time per connection", () => {
  test("a start while a run is in progress starts nothing new and returns the run in progress", async () => {
    // The run cannot get past /users until the second start has been made.
    const users = gate();
    source.fault = async (request) => {
      if (request.path === "/users") await users.opened;
      return undefined;
    };
    const connection = await harness().addConnection({ baseUrl: source.server.baseUrl, token: TOKEN });
    const first = await startSync(harness().startDeps, connection);
    const second = await startSync(harness().startDeps, connection);
    users.open();
    expect(first.started).toBe(true);
    expect(second).toEqual({ runId: first.runId, started: false });
    const summary = await harness().waitForRun(connection.id, first.runId);
    expect(summary.status).toBe("succeeded");
    expect(await harness().runs.list(connection.id)).toHaveLength(1);
    // Once it has finished, the connection takes a new run.
    expect((await startSync(harness().startDeps, connection)).started).toBe(true);
  });

  test("the scheduled dispatcher starts a sync for every connection and skips those with a run in progress", async () => {
    // The schedule tick as the runtimes run it: the dispatch state machine on the local engine. No run can get past
    // /users until a second tick has been made.
    const users = gate();
    // Runs an earlier test left going end first, so that every connection's run is the tick's.
    for (const connection of await harness().connections.listAll()) {
      const [latest] = await harness().runs.list(connection.id, { limit: 1 });
      if (latest !== undefined) await harness().waitForRun(connection.id, latest.id);
    }
    const before = (await harness().connections.listAll()).length + 2;
    const allAtUsers = gate();
    let atUsers = 0;
    source.fault = async (request) => {
      if (request.path === "/users") {
        if (++atUsers === before) allAtUsers.open();
        await users.opened;
      }
      return undefined;
    };
    const a = await harness().addConnection({ baseUrl: source.server.baseUrl, token: TOKEN, accountId: "dispatch-a" });
    const b = await harness().addConnection({ baseUrl: source.server.baseUrl, token: TOKEN, accountId: "dispatch-b" });
    const dispatch = createLocalDispatch({ startDeps: harness().startDeps, integrations: harness().engine.integrations, maxConcurrentRuns: before, timeScale: 0.01, logger: harness().logger });
    const first = dispatch.tick();
    await allAtUsers.opened;
    const executions = harness().engine.list().length;
    expect((await dispatch.tick()).status).toBe("SUCCEEDED");
    // The second tick started nothing: every connection's run was still in progress.
    expect(harness().engine.list()).toHaveLength(executions);
    users.open();
    expect((await first).status).toBe("SUCCEEDED");
    for (const connection of await harness().connections.listAll()) {
      const [latest] = await harness().runs.list(connection.id, { limit: 1 });
      expect(latest?.status, connection.id).toBe("succeeded");
    }
    for (const connection of [a, b]) expect(await harness().runs.list(connection.id)).toHaveLength(1);
    await dispatch.stop();
  });
});

describe("a run that dies", () => {
  test("a run killed between two pages resumes on the next run with nothing lost or duplicated", async () => {
    source.data = { ...source.data, leads: leads(450) };
    const connection = await harness().addConnection({ baseUrl: source.server.baseUrl, token: TOKEN });
    let killed = false;
    const kill = gate();
    // Fetched ahead, page 3's request can arrive while page 2 still commits: the kill waits for that commit.
    const page2 = harness().pageCommitted("leads", 2);
    source.fault = async (request) => {
      // Kill the execution while page 3 of /leads is being fetched: pages 1-2 are committed.
      if (request.path === "/leads" && request.query.get("page") === "3" && !killed) {
        killed = true;
        await page2;
        const [run] = await harness().runs.list(connection.id);
        await harness().engine.abort(executionOf(run!.id));
        kill.open();
        return { destroy: true };
      }
      return undefined;
    };
    const first = await startSync(harness().startDeps, connection);
    await kill.opened;
    // The page task that was running when it was killed has finished too (its result dropped).
    await harness().engine.settled(executionOf(first.runId));
    expect((await harness().runs.get(connection.id, first.runId))?.status).toBe("running");
    const watermark = await harness().records.getWatermark(connection.id, "leads");
    expect(watermark).toBe(new Date(Date.parse(stamp(199))).toISOString());

    source.server.requests.length = 0;
    const second = await startSync(harness().startDeps, connection);
    expect(second.started).toBe(true);
    const summary = await harness().waitForRun(connection.id, second.runId);
    expect(summary.status).toBe("succeeded");

    const resumedFrom = source.server.requests.find((request) => request.path === "/leads")?.query["updated_since"];
    expect(resumedFrom).toBe(
      `${new Date(Date.parse(watermark!) - WATERMARK_SAFETY_MARGIN_SECONDS * 1000).toISOString().slice(0, 19)}+00:00`,
    );
    const stored = await harness().listAll(connection.id, "leads");
    expect(stored).toHaveLength(450);
    expect(new Set(stored.map((lead) => lead["id"])).size).toBe(450);
    const dead = await harness().runs.get(connection.id, first.runId);
    expect(dead?.status).toBe("failed");
    expect(dead?.entities.find((row) => row.entity === "leads")?.error).toMatch(/stopped without finishing/);
  });

  test("a run that died never blocks its connection: an expired lease is taken over", async () => {
    const connection = await harness().addConnection({ baseUrl: source.server.baseUrl, token: TOKEN });
    const deadRunId = newRunId(new Date(Date.now() - 3_600_000));
    await harness().runs.begin({
      connectionId: connection.id,
      runId: deadRunId,
      startedAt: new Date(Date.now() - 3_600_000).toISOString(),
      leaseUntil: new Date(Date.now() - 1_000).toISOString(),
    });
    const next = await startSync(harness().startDeps, connection);
    expect(next.started).toBe(true);
    expect((await harness().waitForRun(connection.id, next.runId)).status).toBe("succeeded");
    expect((await harness().runs.get(connection.id, deadRunId))?.status).toBe("failed");
  });

  test("a sync that cannot be queued fails cleanly: the run is reported failed and the connection is free again", async () => {
    const connection = await harness().addConnection({ baseUrl: source.server.baseUrl, token: TOKEN });
    const down: RunStarter = {
      start: async () => {
        throw new Error("ServiceUnavailable");
      },
      isRunning: async () => false,
      abort: async () => {},
    };
    await expect(startSync({ ...harness().startDeps, starter: down }, connection)).rejects.toBeInstanceOf(SyncQueueUnavailableError);
    const [failed] = await harness().runs.list(connection.id);
    expect(failed?.status).toBe("failed");
    expect((await startSync(harness().startDeps, connection)).started).toBe(true);
  });
});

/** The execution started for a run (recorded by wrapping the engine's start). */
function executionOf(runId: string): string {
  const ref = executionsByRun.get(runId);
  if (ref === undefined) throw new Error(`no execution seen for ${runId}`);
  return ref;
}
const executionsByRun = new Map<string, string>();
beforeAll(() => {
  const start = harness().engine.start.bind(harness().engine);
  harness().engine.start = async (input) => {
    const ref = await start(input);
    executionsByRun.set((input as { run_id: string }).run_id, ref);
    return ref;
  };
});
