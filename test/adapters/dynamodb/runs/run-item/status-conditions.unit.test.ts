import { describe, expect, test } from "vitest";
import { checkEntityTransition, checkRunTransition } from "../../../../../lambdas/domain/core/run-lifecycle";
import { ENTITY_RUN_STATUSES, RUN_STATUSES } from "../../../../../lambdas/domain/core/run-summary";
import { entitiesMovedUpdate, finishUpdate } from "../../../../../lambdas/adapters/dynamodb/runs/run-item/progress-writes";
import { entityMoveCondition, runMoveCondition, type ConditionPart } from "../../../../../lambdas/adapters/dynamodb/runs/run-item/status-conditions";

/** The statuses a condition admits: its IN list's values (and a missing status, when it says so). */
function admitted(part: ConditionPart): { statuses: string[]; missing: boolean } {
  return { statuses: Object.values(part.values).map((value) => value.S!).sort(), missing: part.expression.includes("attribute_not_exists") };
}

describe("the run item's status conditions agree with the run's lifecycle", () => {
  test("an entity row's write of each status admits exactly the statuses the lifecycle lets move there (a missing one read as pending)", () => {
    for (const to of ENTITY_RUN_STATUSES) {
      const allowed = ENTITY_RUN_STATUSES.filter((from) => checkEntityTransition(from, to) === null);
      if (allowed.length === 0) {
        expect(() => entityMoveCondition("#row", to)).toThrow(TypeError);
        continue;
      }
      expect(admitted(entityMoveCondition("#row", to))).toEqual({ statuses: [...allowed].sort(), missing: allowed.includes("pending") });
    }
  });

  test("a run's finish admits exactly the statuses the lifecycle lets end: the first finish wins", () => {
    for (const to of ["succeeded", "failed", "cancelled"] as const) {
      const allowed = RUN_STATUSES.filter((from) => checkRunTransition(from, to) === null);
      expect(admitted(runMoveCondition("#status", to))).toEqual({ statuses: [...allowed].sort(), missing: false });
      const update = finishUpdate("runs", "conn-1", "20261121T161800123Z-ab12cd", { status: to, finishedAt: "2026-11-21T16:30:00.000Z" });
      expect(update.ConditionExpression).toContain(runMoveCondition("#status", to).expression);
    }
  });

  test("every row a move names is checked in its one write: the rows that end for the outcome, the rows that start for running", () => {
    const update = entitiesMovedUpdate("runs", "conn-1", "20261121T161800123Z-ab12cd", {
      finished: ["pipelines", "stages"],
      outcome: { status: "succeeded" },
      started: ["users"],
    })!;
    expect(update.ConditionExpression).toContain(entityMoveCondition("#entities.#f0.#status", "succeeded").expression);
    expect(update.ConditionExpression).toContain(entityMoveCondition("#entities.#f1.#status", "succeeded").expression);
    expect(update.ConditionExpression).toContain(entityMoveCondition("#entities.#s0.#status", "running").expression);
    expect(update.ExpressionAttributeNames).toMatchObject({ "#f0": "pipelines", "#f1": "stages", "#s0": "users" });
  });
});
