import { expect, test } from "vitest";
import { DynamoDbRunStore } from "../../../lambdas/adapters/dynamodb/runs/dynamodb-run-store";
import { endUnfinishedEntities } from "../../../lambdas/domain/sync/fail-unfinished-entities";
import { FAR_LEASE } from "../../builders/page-runs";
import { useTestTable } from "../../support/dynamodb";
import { failedWith } from "../../builders/entity-failures";

const table = useTestTable();

test("fail every unfinished entity: one write of the summary; rows that finished keep their outcome", async () => {
  const store = new DynamoDbRunStore(table);
  const connectionId = "conn-unfinished";
  const runId = "20261121T162000000Z-aa0001";
  await store.begin({ connectionId, runId, startedAt: "2026-11-21T16:20:00.000Z", leaseUntil: FAR_LEASE });
  await store.entitiesMoved(connectionId, runId, { finished: [], outcome: { status: "succeeded" }, started: ["pipelines", "stages"] });
  await store.entitiesMoved(connectionId, runId, { finished: ["pipelines", "stages"], outcome: { status: "succeeded" }, started: ["users"] });

  const sent: string[] = [];
  table.client.middlewareStack.add(
    (next, context) => async (args) => {
      sent.push(context.commandName ?? "?");
      return next(args);
    },
    { step: "initialize", name: "countCommands" },
  );
  try {
    const failed = await endUnfinishedEntities(store, await store.get(connectionId, runId), failedWith("service.completes", "the run stopped"));
    expect(failed).toEqual(["users", "contacts", "leads", "tasks", "calls", "events"]);
    expect(sent.filter((command) => command !== "GetItemCommand")).toEqual(["UpdateItemCommand"]);
  } finally {
    table.client.middlewareStack.remove("countCommands");
  }

  const summary = await store.get(connectionId, runId);
  expect(summary?.entities.map((row) => [row.entity, row.status, row.error])).toEqual([
    ["pipelines", "succeeded", null],
    ["stages", "succeeded", null],
    ["users", "failed", "the run stopped"],
    ["contacts", "failed", "the run stopped"],
    ["leads", "failed", "the run stopped"],
    ["tasks", "failed", "the run stopped"],
    ["calls", "failed", "the run stopped"],
    ["events", "failed", "the run stopped"],
  ]);
  expect(summary?.status).toBe("running");
});
