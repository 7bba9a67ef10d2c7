import { describe, expect, test } from "vitest";
import {
  CHILD_TASK_RETRY_WAIT_SECONDS,
  EXPRESS_EXECUTION_SECONDS,
  PAGE_ATTEMPT_OWN_SECONDS,
  SEGMENT_PAGE_START_SECONDS,
  SOURCE_REQUEST_TIMEOUT_MS,
} from "../../lambdas/domain/core/limits";
import { endSegmentByTime, segmentStartsPages } from "../../lambdas/domain/sync/entity-steps";
import { FUNCTION_SIZES } from "../../lib/service-function";
import type { SyncState } from "../../lambdas/domain/sync/sync-state";
import { aslDefinition, type AslState, type Retrier } from "./definitions";

/**
 * The Express page loop against AWS's rules, walked from the definitions as CDK deploys them (no local engine
 * enforces these): "Step Functions service quotas" (an Express workflow runs at most 5 minutes), "Error handling"
 * (a retrier waits IntervalSeconds × BackoffRate^n, at most MaxDelaySeconds, before each of its MaxAttempts; a
 * Catch takes what the retriers gave up on).
 */
const child = aslDefinition("sync-pages.asl.json");
const parent = aslDefinition("sync.asl.json");

/** The longest waits a retrier makes, in order: full jitter only shortens them. */
const longestWaits = (retrier: Retrier): number[] =>
  Array.from({ length: retrier.MaxAttempts ?? 3 }, (_, n) =>
    Math.min((retrier.IntervalSeconds ?? 1) * (retrier.BackoffRate ?? 2) ** n, retrier.MaxDelaySeconds ?? Number.POSITIVE_INFINITY),
  );
const sum = (values: readonly number[]) => values.reduce((total, value) => total + value, 0);
/** All a Task's retriers can add to it: each keeps its own count, so their longest waits add up. */
const retryWaitSeconds = (state: AslState): number => sum((state.Retry ?? []).flatMap(longestWaits));
const childTasks = Object.entries(child.States).filter(([, state]) => state.Type === "Task");

/** One source request at its whole budget, and one leg of a page task: a request with its connection read and slot (and, for the page's own, its commit). */
const requestSeconds = SOURCE_REQUEST_TIMEOUT_MS / 1000;
const legSeconds = requestSeconds + PAGE_ATTEMPT_OWN_SECONDS;
/** lambdas/domain/sync/page-request.ts: a 401 to a token rotated since the read is asked once more, with the new token. */
const REQUESTS_PER_LEG = 2;
const syncPage = child.States["SyncPage"]!;
const transient = syncPage.Retry!.find((retrier) => retrier.ErrorEquals.includes("SourceTransientError"))!;
/** The page in flight: its first try and the Retry's re-runs, each its own request and work, and the spec's 5xx ladder between them. */
const attempts = 1 + transient.MaxAttempts!;
const ladderPathSeconds = attempts * legSeconds + sum(longestWaits(transient));

describe("the Express page loop fits Express's 5 minutes", () => {
  test("Express execution duration (Step Functions service quotas: 5 minutes): the page loop's TimeoutSeconds is that quota", () => {
    expect(EXPRESS_EXECUTION_SECONDS).toBe(5 * 60);
    expect(child["TimeoutSeconds"]).toBe(EXPRESS_EXECUTION_SECONDS);
  });

  test("retries inside an Express workflow (Error handling: a retrier's waits): every Task's retriers add at most 240 s to it", () => {
    expect(childTasks.map(([name]) => name).sort()).toEqual(["BeginRun", "EntityFailed", "FinishRun", "StopRun", "SyncPage"]);
    const waits = Object.fromEntries(childTasks.map(([name, state]) => [name, retryWaitSeconds(state)]));
    console.info(`retry waits inside the Express child, longest: ${JSON.stringify(waits)} s (at most ${CHILD_TASK_RETRY_WAIT_SECONDS})`);
    for (const [name, seconds] of Object.entries(waits)) expect(seconds, name).toBeLessThanOrEqual(CHILD_TASK_RETRY_WAIT_SECONDS);
    // A Task started at the segment's start keeps its whole ladder, with a minute for the attempts themselves.
    expect(CHILD_TASK_RETRY_WAIT_SECONDS + 60).toBeLessThanOrEqual(EXPRESS_EXECUTION_SECONDS);
  });

  test("a segment ends by elapsed time (Step Functions service quotas: 5 minutes): the page task gets the segment's start, and the page in flight after the last start fits with its source attempts and the spec's 5xx ladder", () => {
    expect(syncPage.Parameters).toMatchObject({ "segment_started_at.$": "$$.Execution.StartTime" });
    expect(child.States["EntityFailed"]!.Parameters).toMatchObject({ "segment_started_at.$": "$$.Execution.StartTime" });
    console.info(`segment: pages start until ${SEGMENT_PAGE_START_SECONDS} s; the page in flight: ${attempts} attempts × ${legSeconds} s + ${sum(longestWaits(transient))} s = ${ladderPathSeconds} s`);
    expect(SEGMENT_PAGE_START_SECONDS + ladderPathSeconds).toBeLessThanOrEqual(EXPRESS_EXECUTION_SECONDS);

    // What the page task does with it: a next page after the budget goes to the next segment, nothing else moves.
    const state = (outcome: "next_page" | "continue_as_new"): SyncState => ({ run: { business_account_id: "a", connection_id: "c", run_id: "r" }, cursor: null, step: { outcome } });
    const start = "2026-06-01T12:00:00.000Z";
    const at = (seconds: number) => new Date(Date.parse(start) + seconds * 1000);
    expect(endSegmentByTime(state("next_page"), start, at(SEGMENT_PAGE_START_SECONDS - 0.001)).step).toEqual({ outcome: "next_page" });
    expect(endSegmentByTime(state("next_page"), start, at(SEGMENT_PAGE_START_SECONDS)).step).toEqual({ outcome: "next_segment" });
    expect(endSegmentByTime(state("continue_as_new"), start, at(EXPRESS_EXECUTION_SECONDS)).step).toEqual({ outcome: "continue_as_new" });
    expect(endSegmentByTime(state("next_page"), undefined, at(EXPRESS_EXECUTION_SECONDS)).step).toEqual({ outcome: "next_page" });
    expect(endSegmentByTime(state("next_page"), "not a time", at(EXPRESS_EXECUTION_SECONDS)).step).toEqual({ outcome: "next_page" });
  });

  test("no early request past the segment's last start (docs/throughput.md#fetch-ahead): the segment ends where the early request stops, and the page in flight still fits Express's 5 minutes with a rotated token's request to spare", () => {
    // The rule: an early request leaves only while segmentStartsPages holds, asked right before it leaves.
    const start = "2026-06-01T12:00:00.000Z";
    const at = (seconds: number) => new Date(Date.parse(start) + seconds * 1000);
    expect(segmentStartsPages(start, at(SEGMENT_PAGE_START_SECONDS - 0.001))).toBe(true);
    expect(segmentStartsPages(start, at(SEGMENT_PAGE_START_SECONDS))).toBe(false);
    expect(segmentStartsPages(undefined, at(EXPRESS_EXECUTION_SECONDS))).toBe(true);
    // An early request is made when the segment may start the page it fetches, and only then.
    for (const seconds of [0, SEGMENT_PAGE_START_SECONDS - 0.001, SEGMENT_PAGE_START_SECONDS, EXPRESS_EXECUTION_SECONDS]) {
      const next: SyncState = { run: { business_account_id: "a", connection_id: "c", run_id: "r" }, cursor: null, step: { outcome: "next_page" } };
      expect(endSegmentByTime(next, start, at(seconds)).step.outcome === "next_page", `${seconds} s`).toBe(segmentStartsPages(start, at(seconds)));
    }

    // An early request that left before the last start runs beside the last attempt's commit: its leg, rotated token included.
    const earlyLegSeconds = REQUESTS_PER_LEG * requestSeconds + PAGE_ATTEMPT_OWN_SECONDS;
    const inFlightSeconds = Math.max(ladderPathSeconds, earlyLegSeconds);
    // The margin: one more source request, a token rotated while the page is in flight (its 401 asked once more).
    const marginSeconds = requestSeconds;
    const withRule = SEGMENT_PAGE_START_SECONDS + inFlightSeconds + marginSeconds;
    // Without the rule, the last attempt's early request leaves at the end of its ladder and is waited for.
    const withoutRule = SEGMENT_PAGE_START_SECONDS + ladderPathSeconds + legSeconds + marginSeconds;
    console.info(
      `page in flight after ${SEGMENT_PAGE_START_SECONDS} s: max(${ladderPathSeconds}, early ${earlyLegSeconds}) + margin ${marginSeconds} s = ${withRule} s of ${EXPRESS_EXECUTION_SECONDS}; an early request after the ladder: ${withoutRule} s`,
    );
    expect(withRule).toBeLessThanOrEqual(EXPRESS_EXECUTION_SECONDS);
  });

  test("the page task's Lambda timeout covers an attempt with its own and the early request, each asked once more for a rotated token, with their reads, slots and the commit; its Task's TimeoutSeconds is above it and fits a segment after its last start", () => {
    const attemptSeconds = 2 * (REQUESTS_PER_LEG * requestSeconds + PAGE_ATTEMPT_OWN_SECONDS);
    const lambdaSeconds = FUNCTION_SIZES.syncPage.timeout.toSeconds();
    const taskSeconds = syncPage["TimeoutSeconds"] as number;
    console.info(`a page task at worst: 2 legs × (${REQUESTS_PER_LEG} × ${requestSeconds} s + ${PAGE_ATTEMPT_OWN_SECONDS} s) = ${attemptSeconds} s; Lambda ${lambdaSeconds} s; Task ${taskSeconds} s`);
    expect(attemptSeconds).toBeLessThanOrEqual(lambdaSeconds);
    expect(taskSeconds).toBeGreaterThan(lambdaSeconds);
    expect(SEGMENT_PAGE_START_SECONDS + taskSeconds).toBeLessThanOrEqual(EXPRESS_EXECUTION_SECONDS);
  });

  test("longer waits move to the Standard run (Error handling: a Catch after the retriers): our own service busy past the child's retries fails the segment, not the entity, and the parent waits before running it again", () => {
    const busy = ["Lambda.TooManyRequestsException", "Lambda.ServiceException", "StoreUnavailableError", "RateLimitSlotsStaleError"];
    const catcher = child.States["SyncPage"]!.Catch!.find((candidate) => busy.every((name) => candidate.ErrorEquals.includes(name)))!;
    expect(catcher).toBeDefined();
    expect(child.States[catcher.Next]!.Type).toBe("Fail");
    const runPages = parent.States["RunPages"]!;
    const [retrier] = runPages.Retry!;
    expect(retrier!.ErrorEquals).toEqual(["States.ALL"]);
    // The parent's waits between segments are Standard Waits in all but name: free, and longer than a child could afford.
    expect(sum(longestWaits(retrier!))).toBeGreaterThanOrEqual(2 * 60);
  });

  test("a segment's failure or time-out is caught (Error handling: Catch): past RunPages' retries the entities fail with the error and the run goes on to its end, never failing for a time-out alone", () => {
    const runPages = parent.States["RunPages"]!;
    const catcher = runPages.Catch?.find((candidate) => candidate.ErrorEquals.includes("States.ALL"));
    expect(catcher, "RunPages has no Catch: a segment that times out through every retry fails the run").toBeDefined();
    const gaveUp = parent.States[catcher!.Next]!;
    expect(gaveUp.Type).toBe("Choice");
    const choices = gaveUp["Choices"] as Array<{ Variable: string; IsPresent: boolean; Next: string }>;
    const next = (variable: string) => parent.States[choices.find((choice) => choice.Variable === variable && choice.IsPresent)!.Next]!;
    // A segment that was itself failing entities ends the run: no loop.
    expect(next("$.error").Type).toBe("Fail");
    // From the cursor the last segment ended on, or the one a continuation was given: that entity fails, the run goes on.
    expect(next("$.step")).toMatchObject({ Type: "Pass", ResultPath: "$.error", Next: "RunPages" });
    expect(next("$.continuation")).toMatchObject({ Type: "Pass", Next: "RunPages", Parameters: { "cursor.$": "$.continuation", error: { Error: "PageLoopFailed" } } });
    // A fresh run's first segment: no cursor is known, so every unfinished entity fails and the run finishes (StopRun).
    const fresh = parent.States[gaveUp["Default"] as string]!;
    expect(fresh).toMatchObject({ Type: "Pass", Next: "RunPages", Parameters: { cursor: null, error: { Error: "PageLoopFailed" } } });
    const enter = child.States["Enter"]!["Choices"] as Array<{ Variable: string; Next: string }>;
    const failed = child.States[enter.find((choice) => choice.Variable === "$.state.error")!.Next]!;
    expect(failed["Choices"]).toEqual([expect.objectContaining({ Variable: "$.state.cursor", IsNull: true, Next: "ResumeStopRun" })]);
    expect(failed["Default"]).toBe("ResumeEntityFailed");
    expect(child.States["ResumeStopRun"]).toMatchObject({ Next: "StopRun" });
  });
});
