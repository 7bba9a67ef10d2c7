import { expect, test } from "vitest";
import { SUMMARY_ENTITIES } from "../../../lambdas/domain/core/entities";
import { RULES_BY_ID } from "../../../lambdas/domain/source-contract/rules/catalog";
import { smallCrm } from "../../builders/small-crm";
import { closedPort } from "../../support/closed-port";
import { crmSource } from "../../support/crm-source";
import { useSourceServers } from "../../support/source-servers";
import { useSyncHarness, entityRow } from "../../support/sync-harness";
import { failFirst } from "../../support/source-faults";

/**
 * A source that is down fails fast: the first entity walks the spec's retry
 * ladder once (1, 2, 4, 8, 16 s: the waits the state machine asks for, read
 * from the engine; TIME_SCALE keeps the real pauses short and no assertion
 * depends on them), and when no try of its page reached the source at all,
 * the entities after it fail at once with the same rule instead of walking
 * the ladder seven more times.
 */
const TOKEN = "source-down-token-4b7e";
const harness = useSyncHarness({ timeScale: 0.01 });
const serve = useSourceServers("all");


test("source.reachable: a source that refuses every connection fails its first entity after one ladder, and every other entity at once with the same rule", async () => {
  const connection = await harness().addConnection({ baseUrl: `http://127.0.0.1:${await closedPort()}`, token: TOKEN });
  const summary = await harness().sync(connection);

  // One ladder for the whole run: six tries of /pipelines page 1, none of any other entity.
  expect(harness().waitsOf(summary.id)).toEqual([1, 2, 4, 8, 16]);
  expect(harness().sent.filter((request) => request.baseUrl === connection.base_url).map((request) => request.path)).toEqual(Array(6).fill("/pipelines"));
  const pipelines = entityRow(summary, "pipelines")!;
  expect(pipelines.waits.map((wait) => [wait.attempt, wait.rule])).toEqual([1, 2, 3, 4, 5].map((attempt) => [attempt, "source.reachable"]));
  expect(pipelines.error).toBe("the source could not be reached, through 5 retries: connection refused");

  expect(summary.status).toBe("failed");
  for (const entity of SUMMARY_ENTITIES) {
    expect(entityRow(summary, entity), entity).toMatchObject({ status: "failed", failure: { rule: "source.reachable", fix: RULES_BY_ID.get("source.reachable")!.fix } });
  }
  for (const entity of ["users", "contacts", "leads", "tasks", "calls", "events"]) {
    expect(entityRow(summary, entity)?.error, entity).toMatch(/^not tried: no try of pipelines, page 1, reached the source/);
  }
});

test("source.server-errors-recover: a source that answers (503 on every try) is reached: the entities after it are still tried", async () => {
  const server = await serve(crmSource(smallCrm, { token: TOKEN, fault: failFirst("/pipelines", Infinity, { status: 503, json: { error: "down for maintenance" } }) }));
  const summary = await harness().sync(await harness().addConnection({ baseUrl: server.baseUrl, token: TOKEN }));

  expect(harness().waitsOf(summary.id)).toEqual([1, 2, 4, 8, 16]);
  expect(entityRow(summary, "pipelines")?.failure?.rule).toBe("source.server-errors-recover");
  for (const entity of ["users", "contacts", "leads", "tasks", "calls", "events"]) expect(entityRow(summary, entity)?.status, entity).toBe("succeeded");
});
