import { describe, expect, test } from "vitest";
import { createMemoryLogger } from "../../../lambdas/adapters/local/json-logger";
import { PREFLIGHT_INTERNAL_ERROR, PREFLIGHT_TIME_LIMIT_MS } from "../../../lambdas/domain/preflight/preflight-failure";
import type { PreflightRun, PreflightStore } from "../../../lambdas/domain/preflight/preflight-run";
import { makePreflightFailedHandler } from "../../../lambdas/handlers/preflight/preflight-worker-handler";
import { ManualClock } from "../../support/manual-clock";

/**
 * The worker's on-failure destination (lambdas/entrypoints/preflight-failed.ts): Lambda sends it the failed
 * invocation's record, whose requestPayload is the job. The store is a map here: the DynamoDB store's own actions are
 * checked in test/cdk/table-access.test.ts.
 */
const START = Date.parse("2026-11-21T09:00:00.000Z");
const job = { business_account_id: "acct", connection_id: "conn-1", preflight_id: "20261121T090000000Z-abc123" };

function storeWith(run: PreflightRun): PreflightStore & { readonly runs: Map<string, PreflightRun> } {
  const runs = new Map([[run.id, run]]);
  return { runs, put: async (next) => void runs.set(next.id, next), get: async (_connection, id) => runs.get(id) ?? null };
}

const running = (fields: Partial<PreflightRun> = {}): PreflightRun => ({
  id: job.preflight_id,
  connection_id: job.connection_id,
  base_url: "https://crm.example.com/api",
  status: "running",
  started_at: new Date(START).toISOString(),
  finished_at: null,
  progress: { endpoint: "/contacts", page: 12 },
  error: null,
  conforms: false,
  findings: [{ rule: "record.id", severity: "error", endpoint: "/users", detail: "a user without an id", spec: "Resources", request: "GET /users?page=1" }],
  checked: ["record.id"],
  ...fields,
});

/** Lambda's destination record for a failed asynchronous invocation (the fields the handler ignores included). */
const record = (condition: string) => ({
  version: "1.0",
  timestamp: new Date(START).toISOString(),
  requestContext: { requestId: "r-1", functionArn: "arn:aws:lambda:eu-west-1:111122223333:function:w:live", condition, approximateInvokeCount: 1 },
  requestPayload: job,
  responseContext: { statusCode: 200, executedVersion: "7", functionError: "Unhandled" },
  responsePayload: { errorType: "Error", errorMessage: "boom" },
});

describe("the preflight worker's on-failure destination", () => {
  test("a worker that timed out (past the time limit): failed by preflight.time-limit with its sentence, where it stood, and the findings so far", async () => {
    const store = storeWith(running());
    const clock = new ManualClock(START + 15 * 60_000);
    await makePreflightFailedHandler({ preflights: store, clock, logger: createMemoryLogger() })(record("RetriesExhausted"));
    const run = store.runs.get(job.preflight_id)!;
    expect(run).toMatchObject({ status: "failed", progress: null, finished_at: clock.now().toISOString(), conforms: false });
    expect(run.error).toBe(
      "the check did not finish within its 14 minutes and stopped at /contacts, page 12: declare the highest rate_limit the source sustains and answer each page faster, then check again",
    );
    expect(run.findings.map((finding) => [finding.rule, finding.endpoint])).toEqual([
      ["record.id", "/users"],
      ["preflight.time-limit", "/contacts"],
    ]);
  });

  test("at the time limit exactly it is the time limit; a millisecond before, an error of ours", async () => {
    const atLimit = storeWith(running());
    await makePreflightFailedHandler({ preflights: atLimit, clock: new ManualClock(START + PREFLIGHT_TIME_LIMIT_MS), logger: createMemoryLogger() })(record("RetriesExhausted"));
    expect(atLimit.runs.get(job.preflight_id)!.findings.at(-1)!.rule).toBe("preflight.time-limit");

    const before = storeWith(running());
    await makePreflightFailedHandler({ preflights: before, clock: new ManualClock(START + PREFLIGHT_TIME_LIMIT_MS - 1), logger: createMemoryLogger() })(record("RetriesExhausted"));
    const run = before.runs.get(job.preflight_id)!;
    expect(run).toMatchObject({ status: "failed", error: PREFLIGHT_INTERNAL_ERROR, progress: null });
    expect(run.findings.map((finding) => finding.rule)).toEqual(["record.id"]);
  });

  test("a job that waited past the time limit before it started: failed by it, stopped before a first page", async () => {
    const store = storeWith(running({ progress: null, findings: [], checked: [] }));
    await makePreflightFailedHandler({ preflights: store, clock: new ManualClock(START + PREFLIGHT_TIME_LIMIT_MS), logger: createMemoryLogger() })(record("EventAgeExceeded"));
    const run = store.runs.get(job.preflight_id)!;
    expect(run.error).toMatch(/stopped before it could read a first page: /);
    expect(run.findings).toEqual([expect.objectContaining({ rule: "preflight.time-limit", endpoint: "/", request: "" })]);
  });

  test("a run that already ended is left as it is, and an unknown one is no error", async () => {
    const done = running({ status: "succeeded", finished_at: new Date(START + 60_000).toISOString(), progress: null });
    const store = storeWith(done);
    const handler = makePreflightFailedHandler({ preflights: store, clock: new ManualClock(START + 20 * 60_000), logger: createMemoryLogger() });
    await handler(record("RetriesExhausted"));
    expect(store.runs.get(job.preflight_id)).toEqual(done);
    await expect(handler({ ...record("RetriesExhausted"), requestPayload: { ...job, preflight_id: "20261121T090000000Z-other1" } })).resolves.toBeUndefined();
  });

  test("a record without the job is refused (not a destination record of the worker)", async () => {
    const handler = makePreflightFailedHandler({ preflights: storeWith(running()), clock: new ManualClock(START), logger: createMemoryLogger() });
    await expect(handler({ requestContext: { condition: "RetriesExhausted" } })).rejects.toThrow();
  });
});
