import { describe, expect, test } from "vitest";
import { SUMMARY_ENTITIES } from "../../../lambdas/domain/core/entities";
import type { RunFinding, RunSummary } from "../../../lambdas/domain/core/run-summary";
import { qualityOf } from "../../../lambdas/domain/onboarding/quality-operations";
import { RULES_BY_ID } from "../../../lambdas/domain/source-contract/rules/catalog";

/** A finished run whose tasks row holds `findings`. */
function run(id: string, status: "succeeded" | "failed", findings: RunFinding[]): RunSummary {
  return {
    id,
    connection_id: "c1",
    status,
    started_at: "2026-01-01T00:00:00.000Z",
    finished_at: "2026-01-01T00:01:00.000Z",
    unresolved_won_lost: 0,
    entities: SUMMARY_ENTITIES.map((entity) => ({
      entity,
      status: "succeeded" as const,
      pages: 1,
      records: 1,
      error: null,
      failure: null,
      waits: [],
      findings: entity === "tasks" ? findings : [],
    })),
  };
}
const unlinked = (count: number, ids: string[]): RunFinding => ({ rule: "task.unlinked", severity: "warning", count, sample_ids: ids, detail: `record ${ids[0]}` });
const updatedAt = (count: number): RunFinding => ({ rule: "record.updated-at", severity: "error", count, sample_ids: ["t9"], detail: "record t9" });

describe("quality: the findings of the recent runs, by entity and rule", () => {
  test("per rule: the last successful run's count, a count per run (0 where none), samples of the newest run that hit it, the catalog's fix; errors first", () => {
    const runs = [run("r3", "failed", [unlinked(4, ["t5"])]), run("r2", "succeeded", [unlinked(2, ["t1", "t2"])]), run("r1", "succeeded", [updatedAt(1)])];
    const tasks = qualityOf("c1", runs, runs[1]!).entities.find((row) => row.entity === "tasks")!.rules;
    expect(tasks).toEqual([
      {
        rule: "record.updated-at",
        severity: "error",
        spec: RULES_BY_ID.get("record.updated-at")!.spec,
        fix: RULES_BY_ID.get("record.updated-at")!.fix,
        last_successful_run: 0,
        counts: [{ run_id: "r3", count: 0 }, { run_id: "r2", count: 0 }, { run_id: "r1", count: 1 }],
        sample_ids: ["t9"],
        detail: "record t9",
      },
      expect.objectContaining({ rule: "task.unlinked", last_successful_run: 2, counts: [{ run_id: "r3", count: 4 }, { run_id: "r2", count: 2 }, { run_id: "r1", count: 0 }], sample_ids: ["t5"] }),
    ]);
  });

  test("no successful run: last_successful_run is null for every rule, and every entity is listed in sync order", () => {
    const quality = qualityOf("c1", [run("r1", "failed", [unlinked(1, ["t1"])])], null);
    expect(quality.last_successful_run_id).toBeNull();
    expect(quality.entities.map((row) => row.entity)).toEqual([...SUMMARY_ENTITIES]);
    expect(quality.entities.find((row) => row.entity === "tasks")!.rules[0]!.last_successful_run).toBeNull();
  });
});
