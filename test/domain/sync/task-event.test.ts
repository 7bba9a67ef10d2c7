import { describe, expect, test } from "vitest";
import { LocalSyncEngine } from "../../../lambdas/runtimes/local/local-sync-engine";
import type { TaskHandler } from "../../../lambdas/runtimes/local/step-functions/local-step-functions";
import { loadSyncDefinition, loadSyncPagesDefinition } from "../../../statemachine/sync-definition";
import { makeSyncHandlers } from "../../../lambdas/handlers/sync/sync-handlers";
import type { SyncState } from "../../../lambdas/domain/sync/sync-state";
import { InvalidTaskEventError } from "../../../lambdas/domain/sync/task-event";

/**
 * Every Task handler parses its event with the execution state's schemas
 * (lambdas/domain/sync/sync-state.ts): a malformed event fails at once with
 * InvalidTaskEventError naming the field, never a TypeError deep inside, and
 * the state machine does not retry it.
 */

const RUN = { business_account_id: "acct-task-event", connection_id: "conn-1", run_id: "20260101T000000000Z-abc123" };
const STATE: SyncState = {
  run: RUN,
  cursor: { entity: "leads", page: 2, updated_since: null, watermark: null, previous: null, throttle_attempts: 0, steps: 1 },
  step: { outcome: "next_page" },
};
const CAUGHT = { ...STATE, error: { Error: "PageValidationError", Cause: "record 0: id is required" } };

// No store is reached: the event is refused before any dependency is used.
const handlers = makeSyncHandlers({} as never);

describe("a Task handler given a malformed event fails with InvalidTaskEventError naming the field", () => {
  test.each([
    ["BeginRun", { input: { ...RUN, run_id: 5 }, execution_id: "exec-1" }, "input.run_id"],
    ["BeginRun", { input: RUN }, "execution_id"],
    ["BeginRun", { input: { ...RUN, continuation: { ...STATE.cursor, entity: "stages" } }, execution_id: "exec-1" }, "input.continuation.entity"],
    ["SyncPage", { ...STATE, cursor: { ...STATE.cursor, page: "2" } }, "cursor.page"],
    ["SyncPage", { ...STATE, cursor: { ...STATE.cursor, page: 0 } }, "cursor.page"],
    ["SyncPage", { ...STATE, run: { ...RUN, connection_id: "" } }, "run.connection_id"],
    ["SyncPage", { ...STATE, cursor: { ...STATE.cursor, previous: { idsDigest: 7, lastCompared: null } } }, "cursor.previous.idsDigest"],
    ["SyncPage", { ...STATE, step: { outcome: "throttled" } }, "step.retry_after_seconds"],
    ["EntityFailed", STATE, "error"],
    ["EntityFailed", { ...CAUGHT, cursor: { ...STATE.cursor, throttle_attempts: -1 } }, "cursor.throttle_attempts"],
    ["StopRun", { ...CAUGHT, error: { Error: 401 } }, "error.Error"],
    ["FinishRun", { cursor: null, step: { outcome: "done" } }, "run"],
    ["FinishRun", "not an object", "(event)"],
  ] as const)("%s %j: names %s", async (task, event, field) => {
    const failure = await handlers[task](event).then(
      () => null,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(InvalidTaskEventError);
    expect(failure).toMatchObject({ name: "InvalidTaskEventError", retryable: false });
    expect((failure as Error).message).toMatch(new RegExp(`^${task} event: ${field.replace(/[().]/g, "\\$&")}: `));
  });

  test("a well-formed event is not refused: the cursor of a run started before rate_limit existed parses", async () => {
    const { rate_limit: _absent, ...cursor } = { ...STATE.cursor!, rate_limit: 5 };
    // The handler gets past the parse and reaches its first dependency (none here): a TypeError, not InvalidTaskEventError.
    const failure = await handlers.SyncPage({ ...STATE, cursor }).catch((error: unknown) => error);
    expect(failure).not.toBeInstanceOf(InvalidTaskEventError);
  });
});

/** How many times the parent's RunPages retries a failed segment, as the definition says. */
function runPagesRetries(): number {
  const runPages = (loadSyncDefinition() as { States: Record<string, { Retry?: { MaxAttempts: number }[] }> }).States["RunPages"];
  return runPages?.Retry?.[0]?.MaxAttempts ?? 0;
}

describe("the state machine does not retry a malformed event", () => {
  test("no Retry of any state names InvalidTaskEventError, States.ALL or States.TaskFailed on a Lambda Task", () => {
    // The Lambda Tasks are the Express page loop's; the Standard parent invokes no Lambda.
    const parent = (loadSyncDefinition() as { States: Record<string, { Type: string; Resource?: string }> }).States;
    expect(Object.values(parent).filter((state) => state.Type === "Task" && state.Resource?.startsWith("${"))).toEqual([]);
    const states = (loadSyncPagesDefinition() as { States: Record<string, { Type: string; Resource?: string; Retry?: { ErrorEquals: string[] }[] }> }).States;
    const lambdaTasks = Object.entries(states).filter(([, state]) => state.Type === "Task" && state.Resource?.startsWith("${"));
    expect(lambdaTasks.length).toBe(Object.keys(handlers).length);
    for (const [name, state] of lambdaTasks) {
      const retried = state.Retry?.flatMap((retrier) => retrier.ErrorEquals) ?? [];
      for (const matcher of ["InvalidTaskEventError", "States.ALL", "States.TaskFailed"]) expect(retried, name).not.toContain(matcher);
    }
  });

  test("a malformed state reaching SyncPage: one SyncPage call and one EntityFailed call per segment, the parent's bounded segment retries only, then its bounded attempt to stop the run, and the run's execution fails", async () => {
    const calls: string[] = [];
    const counted = (name: keyof typeof handlers): TaskHandler => (input) => {
      calls.push(name);
      return handlers[name](input);
    };
    const engine = new LocalSyncEngine({
      handlers: {
        // A BeginRun that hands on a cursor the page task cannot read.
        BeginRun: async () => {
          calls.push("BeginRun");
          return { ...STATE, cursor: { ...STATE.cursor, page: "two" } };
        },
        SyncPage: counted("SyncPage"),
        EntityFailed: counted("EntityFailed"),
        StopRun: counted("StopRun"),
        FinishRun: counted("FinishRun"),
      },
      timeScale: 0,
    });
    try {
      const executionId = await engine.start({ ...RUN });
      const result = await engine.result(executionId);
      expect(result.status).toBe("FAILED");
      // The page loop never retries the malformed event itself. The parent re-runs a dead segment as RunPages' Retry allows,
      // then its Catch tries to stop the run (StopRun, as bounded), and the execution fails (PageLoopFailed).
      const tries = 1 + runPagesRetries();
      expect(calls).toEqual([...Array.from({ length: tries }, () => ["BeginRun", "SyncPage", "EntityFailed"]).flat(), ...Array.from({ length: tries }, () => "StopRun")]);
      expect(result.error).toBe("PageLoopFailed");
    } finally {
      await engine.stop();
    }
  });

});
