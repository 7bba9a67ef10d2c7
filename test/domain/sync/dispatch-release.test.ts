import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { DISPATCH_START_FAILURES_PATTERN } from "../../../lib/alarms";
import { matchesFilterPattern } from "../../cdk/metric-filter-pattern";
import { createLocalDispatch } from "../../../lambdas/runtimes/local/local-dispatch";
import { LOCAL_PAGES_STATE_MACHINE_ARN, LOCAL_STATE_MACHINE_ARN } from "../../../lambdas/runtimes/local/local-sync-engine";
import { createServiceIntegrations, type LocalStateMachine } from "../../../lambdas/runtimes/local/step-functions/service-integrations";
import { DISPATCHED_RUN_NOT_STARTED } from "../../../lambdas/domain/sync/dispatch-tick";
import { startSync } from "../../../lambdas/domain/sync/start-sync";
import { leadRecord, pipelineRecord, userRecord } from "../../builders/source-records";
import { crmSource } from "../../support/crm-source";
import { failFirst } from "../../support/source-faults";
import { startSourceServer, type SourceServer } from "../../support/source-server";
import { createSyncHarness, type SyncHarness } from "../../support/sync-harness";

const TOKEN = "release-token-7d2a";
const data = { pipelines: [pipelineRecord()], users: [userRecord()], contacts: [], leads: [leadRecord({ id: "l1" })] };

let harness: SyncHarness;
let server: SourceServer;

beforeEach(async () => {
  harness = await createSyncHarness();
});
afterEach(async () => {
  await server.close();
  await harness.close();
});

/** The sync engine's integrations, with the run's Standard state machine refusing StartExecution whenever `refuse()` says so, as Step Functions does when the account's quota is reached. */
function integrationsRefusing(refuse: () => boolean) {
  const engine = harness.engine;
  const refusing: LocalStateMachine = {
    start: async (input, options) => {
      if (refuse()) throw Object.assign(new Error("execution limit exceeded"), { name: "StepFunctions.ExecutionLimitExceededException" });
      return engine.start(input, options);
    },
    result: (ref) => engine.result(ref),
    knows: (ref) => engine.knows(ref),
    isRunning: (ref) => engine.isRunning(ref),
  };
  return createServiceIntegrations({ machines: { [LOCAL_STATE_MACHINE_ARN]: refusing, [LOCAL_PAGES_STATE_MACHINE_ARN]: engine.child } });
}

/** The tick with a starter whose StartExecution always fails. */
function dispatchWithRefusingStarter() {
  return createLocalDispatch({ startDeps: harness.startDeps, integrations: integrationsRefusing(() => true), maxConcurrentRuns: 2, timeScale: 0.01, logger: harness.logger });
}

async function expectReleased(connectionId: string) {
  // No lock left behind: the run's lock is gone, not held until its lease (15 minutes) runs out.
  expect(await harness.runs.lock(connectionId)).toBeNull();
  const [run] = await harness.runs.list(connectionId, { limit: 1 });
  expect(run?.status).toBe("failed");
  // So the next sync starts at once.
  expect((await startSync(harness.startDeps, { id: connectionId, business_account_id: "acct-1" })).started).toBe(true);
  return run!;
}

describe("a dispatched run that cannot start or go on releases its lock at once", () => {
  test("a run whose hand-over to the sync state machine cannot be started is failed and its lock released, not held until its lease runs out", async () => {
    // The first page is a 429: the first segment ends throttled, and the hand-over's StartExecution is refused.
    server = await startSourceServer(crmSource(() => data, { token: TOKEN, fault: failFirst("/pipelines", 1, { status: 429, headers: { "retry-after": "0" }, json: { error: "slow down" } }) }));
    const connection = await harness.addConnection({ baseUrl: server.baseUrl, token: TOKEN });
    const dispatch = dispatchWithRefusingStarter();
    expect((await dispatch.tick()).status).toBe("SUCCEEDED");
    const run = await expectReleased(connection.id);
    expect(run.entities.find((row) => row.entity === "pipelines")).toMatchObject({ status: "failed", error: DISPATCHED_RUN_NOT_STARTED });
    // The DispatchStartFailures alarm's filter counts this run once, after the hand-over's retries.
    expect(harness.logger.lines.filter((line) => matchesFilterPattern(DISPATCH_START_FAILURES_PATTERN, line))).toEqual([
      expect.objectContaining({ connection_id: connection.id, run_id: run.id, error: "StepFunctions.ExecutionLimitExceededException" }),
    ]);
    await dispatch.stop();
  });

  test("DispatchStartFailures: a hand-over refused once and started by its Retry is not counted", async () => {
    server = await startSourceServer(crmSource(() => data, { token: TOKEN, fault: failFirst("/pipelines", 1, { status: 429, headers: { "retry-after": "0" }, json: { error: "slow down" } }) }));
    const connection = await harness.addConnection({ baseUrl: server.baseUrl, token: TOKEN });
    let refusals = 0;
    const dispatch = createLocalDispatch({ startDeps: harness.startDeps, integrations: integrationsRefusing(() => refusals++ === 0), maxConcurrentRuns: 2, timeScale: 0.01, logger: harness.logger });
    expect((await dispatch.tick()).status).toBe("SUCCEEDED");
    expect(refusals).toBe(2);
    const [run] = await harness.runs.list(connection.id, { limit: 1 });
    expect(run?.status).toBe("succeeded");
    expect(harness.logger.lines.filter((line) => matchesFilterPattern(DISPATCH_START_FAILURES_PATTERN, line))).toEqual([]);
    await dispatch.stop();
  });

  test("a run whose BeginRun fails in its first segment is failed and its lock released, not held until its lease runs out", async () => {
    server = await startSourceServer(crmSource(() => data, { token: TOKEN }));
    const connection = await harness.addConnection({ baseUrl: server.baseUrl, token: TOKEN });
    // The connection vanishes between the tick's listing and the run's BeginRun (deleted meanwhile).
    const get = harness.connections.get.bind(harness.connections);
    harness.connections.get = async (...args) => (args.includes(connection.id) ? null : get(...args));
    const dispatch = createLocalDispatch({ startDeps: harness.startDeps, integrations: harness.engine.integrations, maxConcurrentRuns: 2, timeScale: 0.01, logger: harness.logger });
    expect((await dispatch.tick()).status).toBe("SUCCEEDED");
    harness.connections.get = get;
    await expectReleased(connection.id);
    await dispatch.stop();
  });
});
