import { afterAll, describe, expect, it } from "vitest";
import { FINISHED_EXECUTIONS_KEPT, LocalStepFunctions } from "../../../../lambdas/runtimes/local/step-functions/local-step-functions";

/** Retained memory stays flat: a long-running local service does not keep every finished execution. */
const sfn = new LocalStepFunctions({
  definition: { StartAt: "Done", States: { Done: { Type: "Succeed" } } },
  handlers: {},
});
afterAll(() => sfn.stop());

describe("LocalStepFunctions: finished executions kept", () => {
  it(`keeps the last ${FINISHED_EXECUTIONS_KEPT} finished executions and forgets older ones (isRunning false, as for any ended one)`, async () => {
    const refs: string[] = [];
    for (let n = 0; n < FINISHED_EXECUTIONS_KEPT + 5; n += 1) {
      const ref = await sfn.start({});
      await sfn.result(ref);
      refs.push(ref);
    }
    const newest = refs.at(-1)!;
    expect(await sfn.result(newest)).toMatchObject({ status: "SUCCEEDED" });
    expect(sfn.events(refs[5]!).length).toBeGreaterThan(0);
    for (const forgotten of refs.slice(0, 5)) {
      expect(() => sfn.events(forgotten)).toThrow(/Unknown execution/);
      expect(await sfn.isRunning(forgotten)).toBe(false);
    }
  });
});

describe("LocalStepFunctions: finished executions' histories", () => {
  it("retained history is bounded by events, not executions: finished executions keep their histories newest first within finishedHistoryEventsKept events together, the newest one always whole; an older one's history reads as dropped, its result stays", async () => {
    // Three Pass states: 8 events per execution (started, 3 x entered/exited, succeeded).
    const bounded = new LocalStepFunctions({
      definition: {
        StartAt: "A",
        States: { A: { Type: "Pass", Next: "B" }, B: { Type: "Pass", Next: "C" }, C: { Type: "Pass", End: true } },
      },
      handlers: {},
      finishedHistoryEventsKept: 20,
    });
    try {
      const refs: string[] = [];
      for (let n = 0; n < 4; n += 1) {
        const ref = await bounded.start({});
        await bounded.result(ref);
        refs.push(ref);
      }
      const sizes = refs.map((ref) => {
        try {
          return bounded.events(ref).length;
        } catch (error) {
          expect(String(error)).toMatch(/history was dropped/);
          return 0;
        }
      });
      const perExecution = sizes.at(-1)!;
      expect(perExecution).toBeGreaterThan(5);
      // The newest ones while they fit in 20 events together; older ones dropped, their results kept.
      const kept = Math.max(1, Math.floor(20 / perExecution));
      expect(sizes).toEqual([...Array(4 - kept).fill(0), ...Array(kept).fill(perExecution)]);
      expect(await bounded.result(refs[0]!)).toMatchObject({ status: "SUCCEEDED" });
      expect(() => bounded.timers(refs[0]!)).toThrow(/history was dropped/);
    } finally {
      await bounded.stop();
    }
  });
});
