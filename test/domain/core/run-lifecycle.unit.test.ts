import { describe, expect, test } from "vitest";
import * as lifecycle from "../../../lambdas/domain/core/run-lifecycle";

const { ENTITY_TRANSITIONS, InvalidTransitionError, RUN_TRANSITIONS, checkEntityTransition, checkRunTransition, isEntityEnded, statusesMovingTo } = lifecycle;
import { ENTITY_RUN_STATUSES, RUN_STATUSES } from "../../../lambdas/domain/core/run-summary";

describe("a run's lifecycle", () => {
  test("every run status and every entity status has its row in the tables, and names only statuses that exist", () => {
    expect(Object.keys(RUN_TRANSITIONS).sort()).toEqual([...RUN_STATUSES].sort());
    expect(Object.keys(ENTITY_TRANSITIONS).sort()).toEqual([...ENTITY_RUN_STATUSES].sort());
    for (const moves of Object.values(RUN_TRANSITIONS)) for (const to of moves) expect(RUN_STATUSES).toContain(to);
    for (const moves of Object.values(ENTITY_TRANSITIONS)) for (const to of moves) expect(ENTITY_RUN_STATUSES).toContain(to);
  });

  test("a run ends once: running moves to succeeded, failed or cancelled, and an ended run moves nowhere, not even onto itself", () => {
    for (const to of ["succeeded", "failed", "cancelled"] as const) expect(checkRunTransition("running", to)).toBeNull();
    for (const from of ["succeeded", "failed", "cancelled"] as const) {
      for (const to of RUN_STATUSES) expect(checkRunTransition(from, to)).toBeInstanceOf(InvalidTransitionError);
    }
  });

  test("a refused move is a typed error naming what moved, from and to", () => {
    const error = checkRunTransition("cancelled", "succeeded");
    expect(error).toBeInstanceOf(InvalidTransitionError);
    expect(error).toMatchObject({ name: "InvalidTransitionError", subject: "run", from: "cancelled", to: "succeeded" });
    expect(error?.message).toBe("a run cannot move from cancelled to succeeded");
  });
});

describe("an entity row's lifecycle", () => {
  test("a row never succeeds without having run: pending to succeeded is refused", () => {
    expect(checkEntityTransition("pending", "succeeded")).toBeInstanceOf(InvalidTransitionError);
    expect(checkEntityTransition("pending", "running")).toBeNull();
    expect(checkEntityTransition("running", "succeeded")).toBeNull();
  });

  test("a row not reached fails or is cancelled with its run: pending and running both move to failed and cancelled", () => {
    for (const from of ["pending", "running"] as const) {
      expect(checkEntityTransition(from, "failed")).toBeNull();
      expect(checkEntityTransition(from, "cancelled")).toBeNull();
    }
  });

  test("an ended row keeps its outcome: succeeded, failed and cancelled move to no other status; a row the owner cancelled is never moved", () => {
    for (const from of ["succeeded", "failed", "cancelled"] as const) {
      for (const to of ENTITY_RUN_STATUSES.filter((status) => status !== from)) {
        expect(checkEntityTransition(from, to)).toBeInstanceOf(InvalidTransitionError);
      }
    }
    expect(checkEntityTransition("cancelled", "cancelled")).toBeInstanceOf(InvalidTransitionError);
  });

  test("a replayed move is allowed: a Task retried after its write committed writes running, succeeded or failed over itself", () => {
    for (const status of ["running", "succeeded", "failed"] as const) expect(checkEntityTransition(status, status)).toBeNull();
  });

  test("a row has ended when it moves nowhere but onto itself: succeeded, failed, cancelled; pending and running have not", () => {
    expect(ENTITY_RUN_STATUSES.filter(isEntityEnded)).toEqual(["succeeded", "failed", "cancelled"]);
  });

  test("the statuses a write may find are exactly those the check allows", () => {
    for (const to of ENTITY_RUN_STATUSES) {
      expect(statusesMovingTo(ENTITY_TRANSITIONS, to)).toEqual(ENTITY_RUN_STATUSES.filter((from) => checkEntityTransition(from, to) === null));
    }
    for (const to of RUN_STATUSES) {
      expect(statusesMovingTo(RUN_TRANSITIONS, to)).toEqual(RUN_STATUSES.filter((from) => checkRunTransition(from, to) === null));
    }
  });
});
