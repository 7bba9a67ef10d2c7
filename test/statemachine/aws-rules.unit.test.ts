import { describe, expect, test } from "vitest";
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
});
