import type { Context } from "aws-lambda";
import { afterEach, describe, expect, test, vi } from "vitest";
import { createLambdaObservability, runIdsOf } from "../../../lambdas/adapters/aws/lambda-observability";

/** Powertools writes one JSON line per log call, info on stdout, warn and error on stderr (Lambda ships both to CloudWatch Logs). */
function captureStdout(): () => Record<string, any>[] {
  const written: string[] = [];
  for (const stream of [process.stdout, process.stderr]) {
    vi.spyOn(stream, "write").mockImplementation((chunk: string | Uint8Array) => {
      written.push(String(chunk));
      return true;
    });
  }
  return () => written.join("").split("\n").filter((line) => line.trim() !== "").map((line) => JSON.parse(line) as Record<string, any>);
}

/** The context Lambda passes the handler (only the fields Powertools reads matter). */
function lambdaContext(requestId: string): Context {
  return {
    awsRequestId: requestId,
    functionName: "CrmIntegration-SyncPage",
    functionVersion: "7",
    invokedFunctionArn: "arn:aws:lambda:eu-west-1:123456789012:function:CrmIntegration-SyncPage:live",
    memoryLimitInMB: "512",
    logGroupName: "/aws/lambda/CrmIntegration-SyncPage",
    logStreamName: "2026/11/23/[7]abc",
    callbackWaitsForEmptyEventLoop: true,
    getRemainingTimeInMillis: () => 60_000,
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

const RUN = { business_account_id: "acct-1", connection_id: "conn-1", run_id: "run-20261123-abc" };

afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
});

describe("Lambda observability (Powertools)", () => {
  test("logger: every line carries the request id, cold start (true once), the service, and the run's ids appended from the event; they do not leak into the next invocation", async () => {
    // Lambda sets it for an on-demand environment; Powertools reports no cold start without it (e.g. provisioned concurrency).
    vi.stubEnv("AWS_LAMBDA_INITIALIZATION_TYPE", "on-demand");
    const lines = captureStdout();
    const observability = createLambdaObservability({ serviceName: "crm-integration", namespace: "CrmIntegration/Test" });
    const handler = observability.observed(async (event: unknown) => {
      observability.logger.info("page committed", { entity: "leads", page: 3 });
      return event;
    });

    await handler({ run: RUN, cursor: null }, lambdaContext("req-1"));
    await handler({ input: { ...RUN, run_id: "run-2" }, execution_id: "exec" }, lambdaContext("req-2"));
    await handler({}, lambdaContext("req-3"));

    const [first, second, third] = lines();
    expect(first).toMatchObject({
      level: "INFO",
      message: "page committed",
      service: "crm-integration",
      function_request_id: "req-1",
      cold_start: true,
      function_name: "CrmIntegration-SyncPage",
      run_id: "run-20261123-abc",
      connection_id: "conn-1",
      entity: "leads",
      page: 3,
    });
    expect(first).toHaveProperty("timestamp");
    // BeginRun's event carries the run under `input`.
    expect(second).toMatchObject({ function_request_id: "req-2", cold_start: false, run_id: "run-2", connection_id: "conn-1" });
    // An event without a run: no stale ids from the last invocation.
    expect(third).toMatchObject({ function_request_id: "req-3", cold_start: false });
    expect(third).not.toHaveProperty("run_id");
    expect(third).not.toHaveProperty("connection_id");
  });

  test("log level from Lambda's log controls: AWS_LAMBDA_LOG_LEVEL=WARN drops info lines and keeps warnings", async () => {
    vi.stubEnv("AWS_LAMBDA_LOG_LEVEL", "WARN");
    const lines = captureStdout();
    const observability = createLambdaObservability({ serviceName: "crm-integration", namespace: "CrmIntegration/Test" });
    const handler = observability.observed(async () => {
      observability.logger.info("page committed");
      observability.logger.warn("entity failed", { fault: "customer" });
    });

    await handler({ run: RUN }, lambdaContext("req-1"));

    expect(lines().map((line) => [line.level, line.message])).toEqual([["WARN", "entity failed"]]);
  });

  test("the logger adapter's methods work unbound (callers pass deps.logger.warn around)", () => {
    const lines = captureStdout();
    const { logger } = createLambdaObservability({ serviceName: "crm-integration", namespace: "CrmIntegration/Test" });
    const warn = logger.warn;
    warn("entity finished", { status: "failed" });
    expect(lines()).toEqual([expect.objectContaining({ level: "WARN", message: "entity finished", status: "failed" })]);
  });

  test("run ids are read from a Task state's `run` or BeginRun's `input`, and nothing else", () => {
    expect(runIdsOf({ run: RUN })).toEqual({ run_id: RUN.run_id, connection_id: RUN.connection_id });
    expect(runIdsOf({ input: RUN })).toEqual({ run_id: RUN.run_id, connection_id: RUN.connection_id });
    expect(runIdsOf({ run: { run_id: 7 } })).toBeUndefined();
    expect(runIdsOf(null)).toBeUndefined();
    expect(runIdsOf("event")).toBeUndefined();
  });
});
