import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { CANCELLED_BY_OWNER } from "../../../lambdas/onboarding/cancel-run";
import { contactRecord, leadRecord, pipelineRecord, userRecord } from "../../builders/source-records";
import { createApiHarness, CONNECTIONS_PATH, type ApiHarness } from "../../support/api-harness";
import { startHoldableCrmSource, type LeadsHold } from "../../support/holdable-crm-source";
import type { SourceServer } from "../../support/source-server";

const SOURCE_TOKEN = "src-cancel-api-77e0";
const DATA = {
  pipelines: [pipelineRecord()],
  users: [userRecord()],
  contacts: [contactRecord()],
  leads: [leadRecord({ id: "lead-1" }), leadRecord({ id: "lead-2" })],
  tasks: [],
  calls: [],
  events: [],
};

let api: ApiHarness;
let source: SourceServer;
let owner: string;
/** Holds /leads at a gate: a run is caught with its leads page in flight. */
let holdLeads: () => LeadsHold;

beforeAll(async () => {
  api = await createApiHarness();
  const holdable = await startHoldableCrmSource(() => DATA, SOURCE_TOKEN);
  source = holdable.server;
  holdLeads = holdable.holdLeads;
  owner = await api.token("acct-cancel");
});
afterAll(async () => {
  await source.close();
  await api.close();
});

async function newConnection(): Promise<string> {
  const created = await api.request("POST", CONNECTIONS_PATH, {
    token: owner,
    body: { base_url: source.baseUrl, token: SOURCE_TOKEN, rate_limit: 1000, sync_since: "2026-01-01T00:00:00Z" },
  });
  expect(created.status).toBe(201);
  return created.body.id;
}

const executionsOf = (runId: string) =>
  api.sync.engine.list().filter((execution) => (execution.input as { run_id?: string }).run_id === runId);

describe("POST /connections/{id}/syncs/{runId}/cancel", () => {
  test("cancelling a running sync: unfinished entities fail 'cancelled by the owner', finished ones keep their outcome, the execution is aborted", async () => {
    const id = await newConnection();
    const hold = holdLeads();
    const reachedLeads = hold.reached;
    let runId: string;
    let cancelled: Record<string, any>;
    try {
      runId = (await api.request("POST", `${CONNECTIONS_PATH}/${id}/syncs`, { token: owner })).body.id;
      await reachedLeads; // the leads page is in flight, held by the source
      const response = await api.request("POST", `${CONNECTIONS_PATH}/${id}/syncs/${runId}/cancel`, { token: owner });
      expect(response.status, response.text).toBe(200);
      cancelled = response.body;
    } finally {
      hold.release();
    }
    expect(cancelled).toMatchObject({ id: runId, status: "failed", finished_at: expect.any(String) });
    const byEntity = Object.fromEntries(cancelled.entities.map((row: { entity: string }) => [row.entity, row]));
    for (const entity of ["pipelines", "stages", "users", "contacts"]) expect(byEntity[entity]).toMatchObject({ status: "succeeded", error: null });
    for (const entity of ["leads", "tasks", "calls", "events"]) expect(byEntity[entity]).toMatchObject({ status: "failed", error: CANCELLED_BY_OWNER });
    const [execution] = executionsOf(runId);
    expect(execution?.status).toBe("ABORTED");
  });

  test("the fence: the cancelled run's in-flight page writes no record and no watermark, and its summary stays as the cancel left it", async () => {
    const id = await newConnection();
    const hold = holdLeads();
    const reachedLeads = hold.reached;
    let runId: string;
    let cancelled: unknown;
    try {
      runId = (await api.request("POST", `${CONNECTIONS_PATH}/${id}/syncs`, { token: owner })).body.id;
      await reachedLeads;
      cancelled = (await api.request("POST", `${CONNECTIONS_PATH}/${id}/syncs/${runId}/cancel`, { token: owner })).body;
    } finally {
      hold.release();
    }
    // The handler that was fetching the leads page runs to its end (the engine drops its result): wait for it.
    await Promise.all(executionsOf(runId).map((execution) => api.sync.engine.settled(execution.executionId)));
    expect((await api.request("GET", `${CONNECTIONS_PATH}/${id}/records/leads`, { token: owner })).body.data).toEqual([]);
    expect(await api.sync.records.getWatermark(id, "leads")).toBeNull();
    expect((await api.request("GET", `${CONNECTIONS_PATH}/${id}/syncs/${runId}`, { token: owner })).body).toEqual(cancelled);
  });

  test("after a cancel the next sync starts a new run at once, which reads the leads the cancelled run did not store", async () => {
    const id = await newConnection();
    const hold = holdLeads();
    const reachedLeads = hold.reached;
    let runId: string;
    try {
      runId = (await api.request("POST", `${CONNECTIONS_PATH}/${id}/syncs`, { token: owner })).body.id;
      await reachedLeads;
      expect((await api.request("POST", `${CONNECTIONS_PATH}/${id}/syncs/${runId}/cancel`, { token: owner })).status).toBe(200);
    } finally {
      hold.release();
    }
    const next = await api.request("POST", `${CONNECTIONS_PATH}/${id}/syncs`, { token: owner });
    expect(next.status).toBe(202);
    expect(next.body.id).not.toBe(runId);
    expect((await api.waitForRun(id, next.body.id)).status).toBe("succeeded");
    expect((await api.request("GET", `${CONNECTIONS_PATH}/${id}/records/leads`, { token: owner })).body.data).toHaveLength(2);
  });

  test("the first finish wins: cancelling a run that has finished is a 409 and changes nothing", async () => {
    const id = await newConnection();
    const runId = (await api.request("POST", `${CONNECTIONS_PATH}/${id}/syncs`, { token: owner })).body.id;
    const finished = await api.waitForRun(id, runId);
    expect(finished.status).toBe("succeeded");
    const response = await api.request("POST", `${CONNECTIONS_PATH}/${id}/syncs/${runId}/cancel`, { token: owner });
    expect(response.status).toBe(409);
    expect(response.body.error.code).toBe("conflict");
    expect((await api.request("GET", `${CONNECTIONS_PATH}/${id}/syncs/${runId}`, { token: owner })).body).toEqual(finished);
  });

  test("an unknown run, or another connection's, is a 404", async () => {
    const id = await newConnection();
    const other = await newConnection();
    const runId = (await api.request("POST", `${CONNECTIONS_PATH}/${id}/syncs`, { token: owner })).body.id;
    expect((await api.request("POST", `${CONNECTIONS_PATH}/${id}/syncs/20260101T000000000Z-nothing/cancel`, { token: owner })).status).toBe(404);
    expect((await api.request("POST", `${CONNECTIONS_PATH}/${other}/syncs/${runId}/cancel`, { token: owner })).status).toBe(404);
    await api.waitForRun(id, runId);
  });
});
