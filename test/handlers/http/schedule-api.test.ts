import { beforeAll, describe, expect, test } from "vitest";
import { createLocalDispatch } from "../../../lambdas/runtimes/local/local-dispatch";
import { leadRecord, pipelineRecord, userRecord } from "../../builders/source-records";
import { crmSource } from "../../support/crm-source";
import { CONNECTIONS_PATH, useOwnerApi } from "../../support/api-harness";
import type { SourceServer } from "../../support/source-server";
import { useSourceServers } from "../../support/source-servers";

const SOURCE_TOKEN = "src-schedule-api-51bd";

const env = useOwnerApi("acct-schedule");
const serve = useSourceServers("all");
let source: SourceServer;

const DATA = { pipelines: [pipelineRecord()], users: [userRecord()], contacts: [], leads: [leadRecord()], tasks: [], calls: [], events: [] };
const handler = crmSource(() => DATA, { token: SOURCE_TOKEN });

beforeAll(async () => {
  source = await serve(handler);
});

async function newConnection(): Promise<string> {
  const created = await env.api.request("POST", CONNECTIONS_PATH, { token: env.owner, body: { base_url: source.baseUrl, token: SOURCE_TOKEN } });
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
  const before = new Set(env.api.sync.engine.list().map((execution) => execution.executionId));
  const dispatch = createLocalDispatch({ startDeps: env.api.sync.startDeps, integrations: env.api.sync.engine.integrations, maxConcurrentRuns: 20, timeScale: 0.01, logger: env.api.logger });
  expect((await dispatch.tick()).status).toBe("SUCCEEDED");
  await dispatch.stop();
  const started = env.api.sync.engine.list().filter((execution) => !before.has(execution.executionId));
  return new Set(started.map((execution) => connectionIdOf(execution.input)).filter((id) => id !== undefined));
}

describe("POST /connections/{id}/pause and /resume", () => {
  test("a new connection is not paused, and the resource names the schedule (null when the API was not told it)", async () => {
    const id = await newConnection();
    const got = await env.api.request("GET", `${CONNECTIONS_PATH}/${id}`, { token: env.owner });
    expect(got.body).toMatchObject({ paused: false, schedule: null });
  });

  test("pause answers 200 with paused: true; GET and the list show it; pausing twice changes nothing", async () => {
    const id = await newConnection();
    const paused = await env.api.request("POST", `${CONNECTIONS_PATH}/${id}/pause`, { token: env.owner });
    expect(paused.status).toBe(200);
    expect(paused.body).toMatchObject({ id, paused: true });
    expect((await env.api.request("GET", `${CONNECTIONS_PATH}/${id}`, { token: env.owner })).body.paused).toBe(true);
    const listed = (await env.api.request("GET", CONNECTIONS_PATH, { token: env.owner })).body.data.find((c: { id: string }) => c.id === id);
    expect(listed.paused).toBe(true);
    const again = await env.api.request("POST", `${CONNECTIONS_PATH}/${id}/pause`, { token: env.owner });
    expect(again.body).toEqual(paused.body);
  });

  test("the scheduled dispatcher skips a paused connection and starts it again once resumed", async () => {
    const pausedId = await newConnection();
    const activeId = await newConnection();
    await env.api.request("POST", `${CONNECTIONS_PATH}/${pausedId}/pause`, { token: env.owner });

    const first = await dispatchOnce();
    expect(first.has(activeId)).toBe(true);
    expect(first.has(pausedId)).toBe(false);
    expect((await env.api.request("GET", `${CONNECTIONS_PATH}/${pausedId}/syncs`, { token: env.owner })).body.data).toEqual([]);

    const resumed = await env.api.request("POST", `${CONNECTIONS_PATH}/${pausedId}/resume`, { token: env.owner });
    expect(resumed.status).toBe(200);
    expect(resumed.body.paused).toBe(false);
    expect((await dispatchOnce()).has(pausedId)).toBe(true);
  });

  test("a manual sync of a paused connection still runs, and it stays paused", async () => {
    const id = await newConnection();
    await env.api.request("POST", `${CONNECTIONS_PATH}/${id}/pause`, { token: env.owner });
    const started = await env.api.request("POST", `${CONNECTIONS_PATH}/${id}/syncs`, { token: env.owner });
    expect(started.status).toBe(202);
    expect((await env.api.waitForRun(id, started.body.id)).status).toBe("succeeded");
    expect((await env.api.request("GET", `${CONNECTIONS_PATH}/${id}`, { token: env.owner })).body.paused).toBe(true);
  });

  test("a PATCH of a paused connection keeps it paused (pause is not lost by other edits)", async () => {
    const id = await newConnection();
    await env.api.request("POST", `${CONNECTIONS_PATH}/${id}/pause`, { token: env.owner });
    const patched = await env.api.request("PATCH", `${CONNECTIONS_PATH}/${id}`, { token: env.owner, body: { rate_limit: 3 } });
    expect(patched.body).toMatchObject({ rate_limit: 3, paused: true });
  });

  test("another workspace's env.owner gets 404 and the connection stays as it was", async () => {
    const id = await newConnection();
    const stranger = await env.api.token("acct-schedule-other");
    expect((await env.api.request("POST", `${CONNECTIONS_PATH}/${id}/pause`, { token: stranger })).status).toBe(404);
    expect((await env.api.request("GET", `${CONNECTIONS_PATH}/${id}`, { token: env.owner })).body.paused).toBe(false);
  });
});
