import { describe, expect, test } from "vitest";
import { SUMMARY_ENTITIES } from "../../../lambdas/domain/core/entities";
import type { RunFinding, RunSummary } from "../../../lambdas/domain/core/run-summary";
import { healthOf, overviewOf } from "../../../lambdas/domain/onboarding/connection-overview";
import { failure } from "../../builders/entity-failures";

/** A run whose rows hold these findings (by entity); `failed` lists the entities that failed. */
function run(id: string, status: RunSummary["status"], findings: Partial<Record<string, RunFinding[]>>, failed: string[] = []): RunSummary {
  return {
    id,
    connection_id: "c1",
    status,
    started_at: `2026-01-0${id.slice(1)}T00:00:00.000Z`,
    finished_at: status === "running" ? null : `2026-01-0${id.slice(1)}T00:01:00.000Z`,
    unresolved_won_lost: 0,
    entities: SUMMARY_ENTITIES.map((entity) => ({
      entity,
      status: failed.includes(entity) ? ("failed" as const) : status === "running" ? ("pending" as const) : ("succeeded" as const),
      pages: 1,
      records: 2,
      error: failed.includes(entity) ? "the source refused the token (401): invalid token" : null,
      failure: failed.includes(entity) ? failure("auth.token-accepted", "the source refused the token (401): invalid token") : null,
      waits: [],
      findings: findings[entity] ?? [],
    })),
  };
}
const finding = (rule: string, severity: RunFinding["severity"], count: number): RunFinding => ({ rule, severity, count, sample_ids: ["x1"], detail: "record x1" });

describe("the list's overview: the last run and the open findings of each connection", () => {
  test("no run yet: both null", () => {
    expect(overviewOf([])).toEqual({ last_run: null, open_findings: null });
  });

  test("the last run is the newest, running or not; open findings are the newest successful run's, new against the successful one before it", () => {
    const runs = [
      run("r4", "running", {}),
      run("r3", "failed", { tasks: [finding("task.unlinked", "warning", 9)] }, ["calls", "events"]),
      run("r2", "succeeded", { tasks: [finding("task.unlinked", "warning", 3), finding("record.updated-at", "error", 1)], calls: [finding("call.direction-defaulted", "warning", 2)] }),
      run("r1", "succeeded", { tasks: [finding("task.unlinked", "warning", 1)] }),
    ];
    expect(overviewOf(runs)).toEqual({
      last_run: { id: "r4", status: "running", started_at: "2026-01-04T00:00:00.000Z", finished_at: null, records: 16, failed_entities: [] },
      // r2: three (entity, rule) pairs, one an error, six records; the tasks rule was in r1 already (the same rule on calls would be new).
      open_findings: { run_id: "r2", findings: 3, errors: 1, records: 6, new: 2 },
    });
  });

  test("a failed last run names its failed entities; its partial findings are not the open ones", () => {
    const overview = overviewOf([run("r2", "failed", { tasks: [finding("task.unlinked", "warning", 5)] }, ["leads"]), run("r1", "succeeded", {})]);
    expect(overview.last_run).toMatchObject({ id: "r2", status: "failed", failed_entities: ["leads"] });
    expect(overview.open_findings).toEqual({ run_id: "r1", findings: 0, errors: 0, records: 0, new: 0 });
  });

  test("with no successful run before it, every open finding is new; with none successful at all, open findings are null", () => {
    expect(overviewOf([run("r1", "succeeded", { leads: [finding("lead.stage-unresolved", "warning", 1)] })]).open_findings).toMatchObject({ findings: 1, new: 1 });
    expect(overviewOf([run("r1", "failed", {}, ["pipelines"])]).open_findings).toBeNull();
  });
});

describe("the connection's health: stale data, or a required entity that failed in the last finished run", () => {
  test("a required entity that failed in the newest finished run makes it unhealthy, naming it; a run under way is not judged", () => {
    const runs = [run("r3", "running", {}), run("r2", "failed", {}, ["leads", "calls"]), run("r1", "succeeded", {})];
    // calls is optional: it failed too, but only leads keeps the connection unhealthy.
    expect(healthOf(runs, false)).toEqual({ healthy: false, run_id: "r2", failed_entities: ["leads"] });
  });

  test("an optional entity's failure leaves it healthy; stale data alone makes it unhealthy; no finished run: nothing failed", () => {
    expect(healthOf([run("r1", "succeeded", {}, ["events"])], false)).toEqual({ healthy: true, run_id: "r1", failed_entities: [] });
    expect(healthOf([run("r1", "succeeded", {})], true)).toEqual({ healthy: false, run_id: "r1", failed_entities: [] });
    expect(healthOf([run("r1", "running", {})], false)).toEqual({ healthy: true, run_id: null, failed_entities: [] });
  });
});
