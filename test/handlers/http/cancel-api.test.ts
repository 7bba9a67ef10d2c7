import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { METRIC } from "../../../lambdas/domain/core/metric-names";
import type { CountingMetrics } from "../../../lambdas/adapters/local/counting-metrics";
import { contactRecord, leadRecord, pipelineRecord, userRecord } from "../../builders/source-records";
import { CONNECTIONS_PATH } from "../../support/api-harness";
import { useHoldableSourceApi } from "../../support/holdable-crm-source";

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

const env = useHoldableSourceApi(() => DATA, SOURCE_TOKEN, "acct-cancel");

const executionsOf = (runId: string) =>
  env.api.sync.engine.list().filter((execution) => (execution.input as { run_id?: string }).run_id === runId);

describe("POST /connections/{id}/syncs/{runId}/cancel", () => {
  test("cancelling a running sync: the run and its unfinished entities are cancelled, not failed; finished ones keep their outcome; the execution is aborted", async () => {
    const id = await env.newConnection();
    const { runId, acted: cancelled } = await env.whileLeadsInFlight(id, async (runId) => {
      const response = await env.api.request("POST", `${CONNECTIONS_PATH}/${id}/syncs/${runId}/cancel`, { token: env.owner });
      expect(response.status, response.text).toBe(200);
      return response.body as Record<string, any>;
    });
    expect(cancelled).toMatchObject({ id: runId, status: "cancelled", finished_at: expect.any(String) });
    const byEntity = Object.fromEntries(cancelled.entities.map((row: { entity: string }) => [row.entity, row]));
    for (const entity of ["pipelines", "stages", "users", "contacts"]) expect(byEntity[entity]).toMatchObject({ status: "succeeded", error: null });
    for (const entity of ["leads", "tasks", "calls", "events"]) expect(byEntity[entity]).toMatchObject({ status: "cancelled", error: null, failure: null });
    const [execution] = executionsOf(runId);
    expect(execution?.status).toBe("ABORTED");
  });

  test("the fence: the cancelled run's in-flight page writes no record and no watermark, and its summary stays as the cancel left it", async () => {
    const id = await env.newConnection();
    const { runId, acted: cancelled } = await env.whileLeadsInFlight(
      id,
      async (runId): Promise<unknown> => (await env.api.request("POST", `${CONNECTIONS_PATH}/${id}/syncs/${runId}/cancel`, { token: env.owner })).body,
    );
    // The handler that was fetching the leads page runs to its end (the engine drops its result): wait for it.
    await Promise.all(executionsOf(runId).map((execution) => env.api.sync.engine.settled(execution.executionId)));
    expect((await env.api.request("GET", `${CONNECTIONS_PATH}/${id}/records/leads`, { token: env.owner })).body.data).toEqual([]);
    expect(await env.api.sync.records.getWatermark(id, "leads")).toBeNull();
    expect((await env.api.request("GET", `${CONNECTIONS_PATH}/${id}/syncs/${runId}`, { token: env.owner })).body).toEqual(cancelled);
  });

  test("after a cancel the next sync starts a new run at once, which reads the leads the cancelled run did not store", async () => {
    const id = await env.newConnection();
    const { runId } = await env.whileLeadsInFlight(id, async (runId) => {
      expect((await env.api.request("POST", `${CONNECTIONS_PATH}/${id}/syncs/${runId}/cancel`, { token: env.owner })).status).toBe(200);
    });
    const next = await env.api.request("POST", `${CONNECTIONS_PATH}/${id}/syncs`, { token: env.owner });
    expect(next.status).toBe(202);
    expect(next.body.id).not.toBe(runId);
    expect((await env.api.waitForRun(id, next.body.id)).status).toBe("succeeded");
    expect((await env.api.request("GET", `${CONNECTIONS_PATH}/${id}/records/leads`, { token: env.owner })).body.data).toHaveLength(2);
  });

  test("the first finish wins: cancelling a run that has finished is a 409 and changes nothing", async () => {
    const id = await env.newConnection();
    const runId = (await env.api.request("POST", `${CONNECTIONS_PATH}/${id}/syncs`, { token: env.owner })).body.id;
    const finished = await env.api.waitForRun(id, runId);
    expect(finished.status).toBe("succeeded");
    const response = await env.api.request("POST", `${CONNECTIONS_PATH}/${id}/syncs/${runId}/cancel`, { token: env.owner });
    expect(response.status).toBe(409);
    expect(response.body.error.code).toBe("conflict");
    expect((await env.api.request("GET", `${CONNECTIONS_PATH}/${id}/syncs/${runId}`, { token: env.owner })).body).toEqual(finished);
  });

  test("an unknown run, or another connection's, is a 404", async () => {
    const id = await env.newConnection();
    const other = await env.newConnection();
    const runId = (await env.api.request("POST", `${CONNECTIONS_PATH}/${id}/syncs`, { token: env.owner })).body.id;
    expect((await env.api.request("POST", `${CONNECTIONS_PATH}/${id}/syncs/20260101T000000000Z-nothing/cancel`, { token: env.owner })).status).toBe(404);
    expect((await env.api.request("POST", `${CONNECTIONS_PATH}/${other}/syncs/${runId}/cancel`, { token: env.owner })).status).toBe(404);
    await env.api.waitForRun(id, runId);
  });

  test("cancel mid-run: the run is cancelled, not failed; the connection's health stays as its last finished run left it; no failure is alerted, notified or counted", async () => {
    const id = await env.newConnection();
    const first = (await env.api.request("POST", `${CONNECTIONS_PATH}/${id}/syncs`, { token: env.owner })).body.id as string;
    expect((await env.api.waitForRun(id, first)).status).toBe("succeeded");
    const overview = async () => (await env.api.request("GET", CONNECTIONS_PATH, { token: env.owner })).body.data.find((item: { id: string }) => item.id === id);
    const healthBefore = (await overview()).health;
    expect(healthBefore).toEqual({ healthy: true, run_id: first, failed_entities: [] });

    const metrics = env.api.sync.deps.metrics as CountingMetrics;
    const counted = () => [metrics.sum(METRIC.runsFailed), metrics.sum(METRIC.entityFailures), metrics.sum(METRIC.runsSucceeded)];
    const before = counted();
    const { runId } = await env.whileLeadsInFlight(id, async (runId) => {
      expect((await env.api.request("POST", `${CONNECTIONS_PATH}/${id}/syncs/${runId}/cancel`, { token: env.owner })).status).toBe(200);
    });
    await Promise.all(executionsOf(runId).map((execution) => env.api.sync.engine.settled(execution.executionId)));

    const cancelled = (await env.api.request("GET", `${CONNECTIONS_PATH}/${id}/syncs/${runId}`, { token: env.owner })).body;
    expect(cancelled.status).toBe("cancelled");
    expect(cancelled.entities.filter((row: { status: string }) => row.status === "failed")).toEqual([]);
    const item = await overview();
    // The newest run is the cancelled one; the health is still the last finished run's, and nothing needs attention.
    expect(item.last_run).toMatchObject({ id: runId, status: "cancelled", failed_entities: [] });
    expect(item.health).toEqual(healthBefore);
    // No failure counted by the metrics the alarms read, and no "Sync Run Finished" told of the cancelled run.
    expect(counted()).toEqual(before);
    const notifications = (await env.api.request("GET", "/api/v1/crm/custom/notifications", { token: env.owner })).body.data as { detail: { run_id?: string } }[];
    expect(notifications.filter((notification) => notification.detail.run_id === runId)).toEqual([]);
  });
});
