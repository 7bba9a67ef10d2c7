import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { walkDispatchTick } from "../../../bin/cost/dispatch-walk";
import { runWalker } from "../../../bin/cost/run-walk";
import { SYNC_ENTITIES, type SyncEntity } from "../../../lambdas/domain/core/entities";
import { createLocalDispatch } from "../../../lambdas/runtimes/local/local-dispatch";
import { DISPATCH_MAP_STATE } from "../../../statemachine/dispatch-definition";
import { crmSource } from "../../support/crm-source";
import { startSourceServer, type SourceServer } from "../../support/source-server";
import { createSyncHarness, type SyncHarness } from "../../support/sync-harness";

const TOKEN = "walk-token-3b9e";
/** An idle source: every entity one empty page, as the cost model's idle run. */
const idle = { pipelines: [], users: [], contacts: [], leads: [] };
const onePagePerEntity = () => runWalker(Object.fromEntries(SYNC_ENTITIES.map((entity) => [entity, 1])) as Record<SyncEntity, number>);

let harness: SyncHarness;
let server: SourceServer;
beforeEach(async () => {
  harness = await createSyncHarness();
  server = await startSourceServer(crmSource(() => idle, { token: TOKEN }));
});
afterEach(async () => {
  await server.close();
  await harness.close();
});

describe("npm run cost walks the dispatch as the engine runs it", () => {
  test("the Standard transitions of an idle tick, dispatch included (the tick's states, one per Map child started, the child's states, the sync executions'), are what the local engine enters", async () => {
    const connections = 5;
    const cap = 2;
    for (let i = 0; i < connections; i += 1) await harness.addConnection({ baseUrl: server.baseUrl, token: TOKEN });
    const dispatch = createLocalDispatch({ startDeps: harness.startDeps, integrations: harness.engine.integrations, maxConcurrentRuns: cap, timeScale: 0.01, logger: harness.logger });
    const tick = await dispatch.engine.start({});
    expect((await dispatch.engine.result(tick)).status).toBe("SUCCEEDED");

    const events = dispatch.engine.events(tick);
    const entered = events.filter((event) => event.type === "StateEntered");
    // The tick's own states carry no iteration index; a Map child's (and its inline Maps') do.
    const tickEntered = entered.filter((event) => !("index" in event) || event.index === undefined).length;
    // A Distributed Map bills one transition per child execution it starts; an inline Map's iterations are free.
    const childStarts = events.filter((event) => event.type === "MapIterationStarted" && event.parentState.name === DISPATCH_MAP_STATE).length;
    const syncExecutions = harness.engine.parent.list();
    const syncEntered = syncExecutions.flatMap((execution) => harness.engine.parent.events(execution.executionId)).filter((event) => event.type === "StateEntered").length;
    for (const run of await Promise.all((await harness.connections.listAll()).map((connection) => harness.runs.list(connection.id, { limit: 1 })))) {
      expect(run[0]?.status).toBe("succeeded");
    }

    const walked = walkDispatchTick(connections, cap, onePagePerEntity);
    expect({ tick: walked.tickTransitions, childStarts: walked.childStarts, child: walked.childTransitions }).toEqual({
      tick: tickEntered,
      childStarts,
      child: entered.length - tickEntered,
    });
    expect(walked.standardTransitions).toBe(entered.length + childStarts + syncEntered);
    // Three children of at most two runs (the cap), and an idle run never reaches the Standard sync state machine.
    expect(childStarts).toBe(3);
    expect(syncEntered).toBe(0);
    await dispatch.stop();
  });
});
