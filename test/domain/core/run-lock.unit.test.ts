import { describe, expect, test } from "vitest";
import { runLiveness, type RunLock } from "../../../lambdas/domain/core/run-lock";

const NOW = new Date("2026-11-21T16:20:00.000Z");
const lock = (overrides: Partial<RunLock>): RunLock => ({ runId: "run-1", executionRef: null, leaseUntil: "2026-11-21T16:35:00.000Z", ...overrides });

describe("the liveness rule: a run whose execution is known is judged by that execution; with none known, it is live until its lease passes", () => {
  test("an execution recorded on the lock: only the execution can say, whatever the lease", () => {
    expect(runLiveness(lock({ executionRef: "arn:exec", leaseUntil: "2026-11-21T16:00:00.000Z" }), NOW)).toBe("ask_execution");
    expect(runLiveness(lock({ executionRef: "arn:exec" }), NOW, { earlierExecutionsGone: true })).toBe("ask_execution");
  });

  test("no execution known: live before the lease, dead from the instant it passes", () => {
    expect(runLiveness(lock({ leaseUntil: "2026-11-21T16:20:00.001Z" }), NOW)).toBe("live");
    expect(runLiveness(lock({ leaseUntil: "2026-11-21T16:20:00.000Z" }), NOW)).toBe("dead");
    expect(runLiveness(lock({ leaseUntil: "2026-11-21T16:19:59.999Z" }), NOW)).toBe("dead");
  });

  test("no execution known and no earlier execution can survive (a restart): dead at once, lease or not", () => {
    expect(runLiveness(lock({}), NOW, { earlierExecutionsGone: true })).toBe("dead");
  });

  test("a lease that does not parse never passes: a damaged lock is not taken for dead", () => {
    expect(runLiveness(lock({ leaseUntil: "not a time" }), NOW)).toBe("live");
  });
});
