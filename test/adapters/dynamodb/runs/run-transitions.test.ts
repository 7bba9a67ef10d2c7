import { randomUUID } from "node:crypto";
import { describe, expect, test } from "vitest";
import { DynamoDbRunStore } from "../../../../lambdas/adapters/dynamodb/runs/dynamodb-run-store";
import { useTestTable } from "../../../support/dynamodb";
import { failedWith } from "../../../builders/entity-failures";

/*
 * The run store's moves, on DynamoDB Local: a move the run's lifecycle
 * (lambdas/domain/core/run-lifecycle.ts) allows applies; one it refuses is
 * refused by the write's own condition and changes nothing.
 */

const table = useTestTable();
const runs = new DynamoDbRunStore(table);

const RUN = "20261121T161800123Z-aaaaaa";
const STARTED_AT = "2026-11-21T16:18:00.123Z";

async function begun(): Promise<string> {
  const connectionId = `conn-${randomUUID()}`;
  await runs.begin({ connectionId, runId: RUN, startedAt: STARTED_AT, leaseUntil: "2999-01-01T00:00:00.000Z" });
  return connectionId;
}

async function statuses(connectionId: string): Promise<Record<string, string>> {
  const summary = await runs.get(connectionId, RUN);
  return Object.fromEntries((summary?.entities ?? []).map((row) => [row.entity, row.status]));
}

describe("entity rows move only as the run's lifecycle allows", () => {
  test("a row the owner cancelled is not moved by a page task that ends after the cancel: the whole move changes nothing", async () => {
    const connectionId = await begun();
    await runs.entitiesMoved(connectionId, RUN, { finished: [], outcome: { status: "succeeded" }, started: ["leads"] });
    // The cancel ends the unfinished rows first, then the run (cancel-run.ts): between the two, the run is still running.
    await runs.entitiesMoved(connectionId, RUN, { finished: ["leads", "tasks"], outcome: { status: "cancelled" }, started: [] });
    await runs.entitiesMoved(connectionId, RUN, { finished: ["leads"], outcome: { status: "succeeded" }, started: ["tasks"] });
    expect(await statuses(connectionId)).toMatchObject({ leads: "cancelled", tasks: "cancelled" });
  });

  test("a row never succeeds without having run: pending to succeeded changes nothing", async () => {
    const connectionId = await begun();
    await runs.entityFinished(connectionId, RUN, "contacts", { status: "succeeded" });
    expect((await statuses(connectionId))["contacts"]).toBe("pending");
  });

  test("an ended row keeps its outcome: a failed row is not started again, nor a succeeded one failed", async () => {
    const connectionId = await begun();
    await runs.entitiesMoved(connectionId, RUN, { finished: [], outcome: { status: "succeeded" }, started: ["users", "contacts"] });
    await runs.entityFinished(connectionId, RUN, "users", { status: "succeeded" });
    await runs.entityFinished(connectionId, RUN, "contacts", failedWith("source.status-200", "HTTP 400"));
    const before = await runs.get(connectionId, RUN);
    await runs.entityStarted(connectionId, RUN, "contacts");
    await runs.entityFinished(connectionId, RUN, "users", failedWith("source.status-200", "HTTP 400"));
    expect(await runs.get(connectionId, RUN)).toEqual(before);
  });

  test("a replayed move applies again: a Task retried after its write committed leaves the same rows", async () => {
    const connectionId = await begun();
    const move = { finished: ["pipelines", "stages"], outcome: { status: "succeeded" }, started: ["users"] } as const;
    await runs.entitiesMoved(connectionId, RUN, { finished: [], outcome: { status: "succeeded" }, started: ["pipelines", "stages"] });
    await runs.entitiesMoved(connectionId, RUN, move);
    await runs.entitiesMoved(connectionId, RUN, move);
    expect(await statuses(connectionId)).toMatchObject({ pipelines: "succeeded", stages: "succeeded", users: "running" });
  });

  test("a row not reached fails with its run: pending to failed applies, with its failure", async () => {
    const connectionId = await begun();
    await runs.entitiesMoved(connectionId, RUN, { finished: ["calls", "events"], outcome: failedWith("auth.token-accepted", "HTTP 401"), started: [] });
    const summary = await runs.get(connectionId, RUN);
    expect(summary?.entities.filter((row) => row.status === "failed").map((row) => [row.entity, row.failure?.rule])).toEqual([
      ["calls", "auth.token-accepted"],
      ["events", "auth.token-accepted"],
    ]);
  });
});

describe("a run ends once", () => {
  test("a cancelled run is not finished again as succeeded or failed", async () => {
    const connectionId = await begun();
    await runs.finish(connectionId, RUN, { status: "cancelled", finishedAt: "2026-11-21T16:20:00.000Z" });
    await runs.finish(connectionId, RUN, { status: "succeeded", finishedAt: "2026-11-21T16:21:00.000Z" });
    await runs.finish(connectionId, RUN, { status: "failed", finishedAt: "2026-11-21T16:22:00.000Z" });
    expect(await runs.get(connectionId, RUN)).toMatchObject({ status: "cancelled", finished_at: "2026-11-21T16:20:00.000Z" });
  });
});
