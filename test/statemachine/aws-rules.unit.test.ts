import { describe, expect, test } from "vitest";
import { DISPATCH_PAGE_MAX_BYTES, DISPATCH_PAGE_SIZE, STATE_PAYLOAD_MAX_BYTES } from "../../lambdas/domain/sync/dispatch-tick";
import { DISPATCH_MAP_STATE } from "../../statemachine/dispatch-definition";
import { allStates, aslDefinition, ASL_FILES, isLambdaTask, isStepFunctionsTask, type AslFile, type AslState } from "./definitions";

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

  // "ResultWriter (Map)": without a ResultWriter the children's outputs are returned in the Distributed Map's own output
  // (COMPACT), and "if a child workflow execution fails, Step Functions returns its execution result unchanged" (its input,
  // Error and Cause with the execution's metadata); that output must fit the payload quota of "Step Functions service
  // quotas" (256 KiB), ResultPath null or not, and "Error handling" says States.ALL cannot catch the
  // States.DataLimitExceeded that follows. With the results exported to S3 the Map's output is only their location.
  test("Distributed Map output (ResultWriter): the tick's Map outputs a bounded reference however many children fail, computed from the definition at its worst", () => {
    const map = aslDefinition("dispatch.asl.json").States[DISPATCH_MAP_STATE]!;
    const worst = worstMapOutputBytes(map);
    console.info(`Distributed Map output at its worst: ${Number.isFinite(worst) ? `${worst} bytes` : "unbounded"} of ${STATE_PAYLOAD_MAX_BYTES}`);
    expect(worst).toBeLessThan(STATE_PAYLOAD_MAX_BYTES);
    // What the children can still output goes to S3, where nothing caps it: every way a child ends is counted there.
    expect(map.ResultWriter).toMatchObject({ Resource: "arn:aws:states:::s3:putObject", Parameters: { Bucket: "${DispatchResultsBucketName}", Prefix: expect.any(String) } });
  });
});

/**
 * The most bytes the Distributed Map can output. With a ResultWriter that exports to S3: its Map Run ARN (at most
 * 2,048 characters) and the results' bucket (63) and manifest key (1,024), with their JSON. Without one: every child's
 * output, a failed child's being its input (a batch: at most the page's DISPATCH_PAGE_MAX_BYTES over all children), its
 * Error and its Cause (up to 32,768 characters, "Step Functions service quotas") and its execution's metadata.
 */
function worstMapOutputBytes(map: AslState): number {
  const writer = map.ResultWriter as { Resource?: string; Parameters?: Record<string, unknown> } | undefined;
  if (writer?.Resource === "arn:aws:states:::s3:putObject" && writer.Parameters?.["Bucket"] !== undefined) {
    return JSON.stringify({ MapRunArn: "a".repeat(2_048), ResultWriterDetails: { Bucket: "b".repeat(63), Key: "k".repeat(1_024) } }).length;
  }
  const child = map.ItemProcessor!;
  const succeeded = Math.max(
    ...Object.values(child.States).filter((state) => state.Type === "Succeed" || state["End"] === true).map(endingOutputBytes),
  );
  const metadata = JSON.stringify({ ExecutionArn: "a".repeat(2_048), Name: "n".repeat(80), StartDate: 0, StopDate: 0, Status: "FAILED" }).length;
  const failed = 32_768 + 256 + metadata;
  return 2 + DISPATCH_PAGE_MAX_BYTES + DISPATCH_PAGE_SIZE * (Math.max(succeeded, failed) + 1);
}

/** What a state that ends a child leaves as its output, in bytes: {} under a null OutputPath, a Pass's fixed Result, else unbounded. */
function endingOutputBytes(state: { readonly Type: string; readonly [field: string]: unknown }): number {
  if (state["OutputPath"] === null) return 2;
  const replacesItsInput = state["ResultPath"] === undefined || state["ResultPath"] === "$";
  if (state.Type === "Pass" && "Result" in state && replacesItsInput && state["OutputPath"] === undefined) return JSON.stringify(state["Result"]).length;
  return Number.POSITIVE_INFINITY;
}
