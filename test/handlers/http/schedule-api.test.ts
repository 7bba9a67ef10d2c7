import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createLocalDispatch } from "../../../lambdas/runtimes/local/local-dispatch";
import { leadRecord, pipelineRecord, userRecord } from "../../builders/source-records";
import { crmSource } from "../../support/crm-source";
import { createApiHarness, CONNECTIONS_PATH, type ApiHarness } from "../../support/api-harness";
import { startSourceServer, type SourceServer } from "../../support/source-server";

const SOURCE_TOKEN = "src-schedule-api-51bd";

let api: ApiHarness;
let source: SourceServer;
let owner: string;

const DATA = { pipelines: [pipelineRecord()], users: [userRecord()], contacts: [], leads: [leadRecord()], tasks: [], calls: [], events: [] };
const handler = crmSource(() => DATA, { token: SOURCE_TOKEN });

beforeAll(async () => {
  api = await createApiHarness();
  source = await startSourceServer(handler);
  owner = await api.token("acct-schedule");
});
afterAll(async () => {
  await source.close();
  await api.close();
});

async function newConnection(): Promise<string> {
  const created = await api.request("POST", CONNECTIONS_PATH, { token: owner, body: { base_url: source.baseUrl, token: SOURCE_TOKEN } });
  expect(created.status).toBe(201);
  return created.body.id;
}

/** The connection a local execution runs for: a Standard execution's input names it, a page-loop segment's state does. */
const connectionIdOf = (input: unknown): string | undefined => {
  const execution = input as { connection_id?: string; state?: { connection_id?: string; run?: { connection_id?: string } } };
  return execution.connection_id ?? execution.state?.connection_id ?? execution.state?.run?.connection_id;
};

/** Runs one schedule tick (the dispatch state machine, as the runtimes run it) until every run it started has ended; returns which connections it started. */
async function dispatchOnce(): Promise<Set<string>> {
  const before = new Set(api.sync.engine.list().map((execution) => execution.executionId));
  const dispatch = createLocalDispatch({ startDeps: api.sync.startDeps, integrations: api.sync.engine.integrations, maxConcurrentRuns: 20, timeScale: 0.01, logger: api.logger });
  expect((await dispatch.tick()).status).toBe("SUCCEEDED");
  await dispatch.stop();
  const started = api.sync.engine.list().filter((execution) => !before.has(execution.executionId));
  return new Set(started.map((execution) => connectionIdOf(execution.input)).filter((id) => id !== undefined));
}

describe("POST /connections/{id}/pause and /resume", () => {
  test("a new connection is not paused, and the resource names the schedule (null when the API was not told it)", async () => {
    const id = await newConnection();
    const got = await api.request("GET", `${CONNECTIONS_PATH}/${id}`, { token: owner });
    expect(got.body).toMatchObject({ paused: false, schedule: null });
  });

  test("pause answers 200 with paused: true; GET and the list show it; pausing twice changes nothing", async () => {
    const id = await newConnection();
    const paused = await api.request("POST", `${CONNECTIONS_PATH}/${id}/pause`, { token: owner });
    expect(paused.status).toBe(200);
    expect(paused.body).toMatchObject({ id, paused: true });
    expect((await api.request("GET", `${CONNECTIONS_PATH}/${id}`, { token: owner })).body.paused).toBe(true);
    const listed = (await api.request("GET", CONNECTIONS_PATH, { token: owner })).body.data.find((c: { id: string }) => c.id === id);
    expect(listed.paused).toBe(true);
    const again = await api.request("POST", `${CONNECTIONS_PATH}/${id}/pause`, { token: owner });
    expect(again.body).toEqual(paused.body);
  });

  test("the scheduled dispatcher skips a paused connection and starts it again once resumed", async () => {
    const pausedId = await newConnection();
    const activeId = await newConnection();
    await api.request("POST", `${CONNECTIONS_PATH}/${pausedId}/pause`, { token: owner });

    const first = await dispatchOnce();
    expect(first.has(activeId)).toBe(true);
    expect(first.has(pausedId)).toBe(false);
    expect((await api.request("GET", `${CONNECTIONS_PATH}/${pausedId}/syncs`, { token: owner })).body.data).toEqual([]);

    const resumed = await api.request("POST", `${CONNECTIONS_PATH}/${pausedId}/resume`, { token: owner });
    expect(resumed.status).toBe(200);
    expect(resumed.body.paused).toBe(false);
    expect((await dispatchOnce()).has(pausedId)).toBe(true);
  });

  test("a manual sync of a paused connection still runs, and it stays paused", async () => {
    const id = await newConnection();
    await api.request("POST", `${CONNECTIONS_PATH}/${id}/pause`, { token: owner });
    const started = await api.request("POST", `${CONNECTIONS_PATH}/${id}/syncs`, { token: owner });
    expect(started.status).toBe(202);
    expect((await api.waitForRun(id, started.body.id)).status).toBe("succeeded");
    expect((await api.request("GET", `${CONNECTIONS_PATH}/${id}`, { token: owner })).body.paused).toBe(true);
  });

  test("a PATCH of a paused connection keeps it paused (pause is not lost by other edits)", async () => {
    const id = await newConnection();
    await api.request("POST", `${CONNECTIONS_PATH}/${id}/pause`, { token: owner });
    const patched = await api.request("PATCH", `${CONNECTIONS_PATH}/${id}`, { token: owner, body: { rate_limit: 3 } });
    expect(patched.body).toMatchObject({ rate_limit: 3, paused: true });
  });

  test("another workspace's owner gets 404 and the connection stays as it was", async () => {
    const id = await newConnection();
    const stranger = await api.token("acct-schedule-other");
    expect((await api.request("POST", `${CONNECTIONS_PATH}/${id}/pause`, { token: stranger })).status).toBe(404);
    expect((await api.request("GET", `${CONNECTIONS_PATH}/${id}`, { token: owner })).body.paused).toBe(false);
  });
});
