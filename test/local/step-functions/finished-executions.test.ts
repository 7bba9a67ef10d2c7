import { afterAll, describe, expect, it } from "vitest";
import { FINISHED_EXECUTIONS_KEPT, LocalStepFunctions } from "../../../lambdas/local/step-functions/local-step-functions";

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
