import { describe, expect, test } from "vitest";
import { DISPATCH_PAGE_SIZE } from "../../lambdas/domain/sync/dispatch-tick";
import { DISPATCH_MAP_STATE } from "../../statemachine/dispatch-definition";
import { allStates, aslDefinition, ASL_FILES, isLambdaTask, isStepFunctionsTask, type AslFile } from "./definitions";

/**
 * Rules of AWS's documentation that the local engine does not enforce, checked on the three ASL files as written
 * (the same files CDK deploys). Each test names the page its rule comes from.
 */
const FILES = Object.keys(ASL_FILES) as AslFile[];
const everyState = FILES.flatMap((file) => allStates(aslDefinition(file)).map((walked) => ({ file, ...walked })));

describe("the ASL files against AWS's documentation", () => {
  // https://docs.aws.amazon.com/step-functions/latest/dg/bp-lambda-serviceexception.html: the recommended retrier
  // names ClientExecutionTimeoutException, ServiceException, AWSLambdaException and SdkClientException.
  test("Lambda service exceptions: Lambda.ClientExecutionTimeoutException is retried wherever Lambda.ServiceException is, and every Lambda Task retries both", () => {
    const lambdaTasks = everyState.filter(({ state }) => isLambdaTask(state));
    expect(lambdaTasks.length).toBeGreaterThanOrEqual(5 + 4);
    for (const { file, path, state } of lambdaTasks) {
      const retried = (state.Retry ?? []).flatMap((retrier) => retrier.ErrorEquals);
      expect(retried, `${file} ${path}`).toEqual(expect.arrayContaining(["Lambda.ServiceException", "Lambda.ClientExecutionTimeoutException"]));
    }
    for (const { file, path, state } of everyState) {
      for (const retrier of state.Retry ?? []) {
        if (!retrier.ErrorEquals.includes("Lambda.ServiceException")) continue;
        expect(retrier.ErrorEquals, `${file} ${path}`).toContain("Lambda.ClientExecutionTimeoutException");
      }
    }
  });

  // The optimized integration's names: https://docs.aws.amazon.com/step-functions/latest/dg/concepts-nested-workflows.html
  // retries "StepFunctions.ExecutionLimitExceeded" (the API's error code, no suffix), while
  // https://docs.aws.amazon.com/step-functions/latest/dg/supported-services-awssdk.html says an SDK error is always
  // matched with the "Exception" suffix. The pages disagree, so every StepFunctions.* name is matched in both spellings.
  test("Step Functions integration errors: every StepFunctions.* name is matched with and without the Exception suffix", () => {
    const named = everyState.flatMap(({ file, path, state }) =>
      [...(state.Retry ?? []), ...(state.Catch ?? [])].map((rule) => ({ where: `${file} ${path}`, names: rule.ErrorEquals })),
    );
    const stepFunctionsNames = named.filter(({ names }) => names.some((name) => name.startsWith("StepFunctions.")));
    expect(stepFunctionsNames.length).toBeGreaterThan(0);
    for (const { where, names } of stepFunctionsNames) {
      for (const name of names.filter((each) => each.startsWith("StepFunctions.") && each !== "StepFunctions.SdkClientException")) {
        const bare = name.replace(/Exception$/, "");
        expect(names, `${where}: ${name}`).toEqual(expect.arrayContaining([bare, `${bare}Exception`]));
      }
    }
  });

  test("Step Functions integration errors: a throttled start (ExecutionLimitExceeded) is retried by every Task that starts an execution, and ContinueAsNew's lost reply (ExecutionAlreadyExists) is caught in both spellings", () => {
    const starts = everyState.filter(({ state }) => isStepFunctionsTask(state) && state.Resource!.includes("startExecution"));
    expect(starts.map(({ file, path }) => `${file} ${path}`).sort()).toEqual(
      ["dispatch.asl.json RunConnections/FirstSegments/FirstSegment", "dispatch.asl.json RunConnections/HandOvers/RunSync", "sync.asl.json ContinueAsNew", "sync.asl.json RunPages"].sort(),
    );
    for (const { file, path, state } of starts) {
      const retried = (state.Retry ?? []).filter((retrier) => (retrier.MaxAttempts ?? 3) > 0).flatMap((retrier) => retrier.ErrorEquals);
      if (retried.includes("States.ALL")) continue;
      expect(retried, `${file} ${path}`).toEqual(expect.arrayContaining(["StepFunctions.ExecutionLimitExceeded", "StepFunctions.ExecutionLimitExceededException"]));
    }
    const continueAsNew = aslDefinition("sync.asl.json").States["ContinueAsNew"]!;
    const both = ["StepFunctions.ExecutionAlreadyExists", "StepFunctions.ExecutionAlreadyExistsException"];
    expect(continueAsNew.Catch?.[0]).toMatchObject({ ErrorEquals: expect.arrayContaining(both), Next: "AlreadyContinued" });
    // Not retried: the next execution exists already. The States.ALL retrier after it must not see these names first.
    expect(continueAsNew.Retry?.[0]).toMatchObject({ ErrorEquals: expect.arrayContaining(both), MaxAttempts: 0 });
  });

  // https://docs.aws.amazon.com/step-functions/latest/dg/input-output-resultwriter.html: without a ResultWriter the
  // children's outputs are returned in the Distributed Map's own output (COMPACT), which must fit the 256 KiB payload
  // quota (https://docs.aws.amazon.com/step-functions/latest/dg/service-quotas.html), even with ResultPath null.
  test("Distributed Map output: a full page's children's outputs, computed from the definition at their worst, stay under 256 KiB", () => {
    const map = aslDefinition("dispatch.asl.json").States[DISPATCH_MAP_STATE]!;
    expect(map.ResultWriter).toBeUndefined();
    const child = map.ItemProcessor!;
    /** The most bytes a child can output: what each way of ending it leaves as its output. */
    const endings = Object.entries(child.States).flatMap(([name, state]) => {
      const caught = (state.Catch ?? []).some((catcher) => catcher.ErrorEquals.includes("States.ALL"));
      const mayFail = ["Task", "Map", "Parallel"].includes(state.Type) && !caught;
      const ends = state.Type === "Succeed" || state["End"] === true;
      const out: Array<[string, number]> = [];
      // An uncaught error's Cause comes from the service that failed (a Lambda's message, up to 32,768 characters).
      if (mayFail) out.push([`${name} fails`, Number.POSITIVE_INFINITY]);
      if (state.Type === "Fail") out.push([name, JSON.stringify({ Error: state["Error"], Cause: state["Cause"] }).length]);
      if (ends) out.push([name, endingOutputBytes(state)]);
      return out;
    });
    const worstChild = Math.max(...endings.map(([, bytes]) => bytes));
    expect(Object.fromEntries(endings.filter(([, bytes]) => !Number.isFinite(bytes)))).toEqual({});
    // A page holds at most DISPATCH_PAGE_SIZE connections, so at most that many children (batches of one at worst).
    const worstMapOutput = 2 + DISPATCH_PAGE_SIZE * (worstChild + 1);
    console.info(`Distributed Map output at its worst: ${DISPATCH_PAGE_SIZE} children × ${worstChild} bytes = ${worstMapOutput} of ${256 * 1024} bytes`);
    expect(worstMapOutput).toBeLessThan(256 * 1024);
  });
});

/** What a state that ends a child leaves as its output, in bytes: {} under a null OutputPath, a Pass's fixed Result, else unbounded. */
function endingOutputBytes(state: { readonly Type: string; readonly [field: string]: unknown }): number {
  if (state["OutputPath"] === null) return 2;
  const replacesItsInput = state["ResultPath"] === undefined || state["ResultPath"] === "$";
  if (state.Type === "Pass" && "Result" in state && replacesItsInput && state["OutputPath"] === undefined) return JSON.stringify(state["Result"]).length;
  return Number.POSITIVE_INFINITY;
}
