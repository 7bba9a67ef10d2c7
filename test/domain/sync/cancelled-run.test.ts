import { expect, test } from "vitest";
import { METRIC } from "../../../lambdas/domain/core/metric-names";
import { endUnfinishedEntities } from "../../../lambdas/domain/sync/fail-unfinished-entities";
import { finishRun } from "../../../lambdas/domain/sync/finish-run";
import { newRunId } from "../../../lambdas/domain/sync/run-id";
import { useSyncHarness } from "../../support/sync-harness";

/**
 * A cancelled run is no failure. The owner's cancel ends it (lambdas/onboarding/cancel-run.ts); an Express
 * segment that cannot be stopped may still reach FinishRun afterwards: it leaves the run cancelled and
 * counts, notifies and fails nothing.
 */
const harness = useSyncHarness();

test("a segment that reaches FinishRun after its run was cancelled leaves it cancelled: no run or entity failure counted, no notice sent", async () => {
  const connection = await harness().addConnection({ baseUrl: "http://127.0.0.1:9", token: "cancelled-run-token" });
  const startedAt = "2026-05-01T09:00:00.000Z";
  const runId = newRunId(new Date(startedAt));
  await harness().runs.begin({ connectionId: connection.id, runId, startedAt, leaseUntil: "2999-01-01T00:00:00.000Z" });
  await harness().runs.entitiesMoved(connection.id, runId, { finished: [], outcome: { status: "succeeded" }, started: ["pipelines", "stages"] });
  // The owner's cancel, as cancelRun makes it.
  await endUnfinishedEntities(harness().runs, await harness().runs.get(connection.id, runId), { status: "cancelled" });
  await harness().runs.finish(connection.id, runId, { status: "cancelled", finishedAt: startedAt });
  const cancelled = await harness().runs.get(connection.id, runId);
  expect(cancelled?.status).toBe("cancelled");
  expect(cancelled?.entities.every((row) => row.status === "cancelled")).toBe(true);

  const counts = () => [METRIC.runsFailed, METRIC.runsSucceeded, METRIC.entityFailures].map((name) => harness().metrics.sum(name));
  const before = counts();
  const lines = harness().logger.lines.length;
  const run = { business_account_id: connection.business_account_id, connection_id: connection.id, run_id: runId };
  expect(await finishRun(harness().deps, { run, cursor: null, step: { outcome: "done" } })).toEqual({ run_id: runId, status: "cancelled" });

  expect(await harness().runs.get(connection.id, runId)).toEqual(cancelled);
  expect(counts()).toEqual(before);
  // No event: the local publisher logs each one it sends as "event".
  expect(harness().logger.lines.slice(lines).filter((line) => line["message"] === "event")).toEqual([]);
});
