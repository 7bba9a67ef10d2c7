import { describe, expect, test } from "vitest";
import * as errors from "../../lambdas/domain/core/errors";
import { RETRY_BACKOFF_SECONDS, MAX_RETRIES } from "../../lambdas/domain/core/limits";
import { validateDefinition } from "../../lambdas/runtimes/local/step-functions/validate-definition";
import { loadSyncDefinition, loadSyncPagesDefinition } from "../../statemachine/sync-definition";
import { makeSyncHandlers } from "../../lambdas/handlers/sync/sync-handlers";

interface Retrier {
  ErrorEquals: string[];
  IntervalSeconds?: number;
  BackoffRate?: number;
  MaxAttempts?: number;
  JitterStrategy?: string;
}
interface State {
  Type: string;
  Resource?: string;
  Retry?: Retrier[];
  Catch?: Array<{ ErrorEquals: string[]; Next: string }>;
  Parameters?: Record<string, unknown>;
  Choices?: Array<Record<string, unknown>>;
}
type Definition = { StartAt: string; States: Record<string, State> };
/** The Standard parent (429 waits, ContinueAsNew, the run's end) and the Express page loop it runs in segments. */
const parent = loadSyncDefinition() as Definition;
const pages = loadSyncPagesDefinition() as Definition;
const states = { ...parent.States, ...pages.States };

/** The backoff a Retry block waits before attempt n (1-based), as Step Functions computes it. */
const retryWaits = (retrier: Retrier) =>
  Array.from({ length: retrier.MaxAttempts ?? 3 }, (_, n) => (retrier.IntervalSeconds ?? 1) * (retrier.BackoffRate ?? 2) ** n);

const isAbstract = (value: unknown) => value === errors.SyncError;

describe("statemachine/sync.asl.json and sync-pages.asl.json", () => {
  test("both definitions pass asl-validator", () => {
    expect(validateDefinition(parent)).toEqual({ valid: true, errors: [] });
    expect(validateDefinition(pages)).toEqual({ valid: true, errors: [] });
  });

  test("5xx, timeouts and connection errors: up to 5 retries after 1, 2, 4, 8, 16 s, without jitter", () => {
    const transient = states["SyncPage"]?.Retry?.find((retrier) => retrier.ErrorEquals.includes("SourceTransientError"));
    expect(transient).toBeDefined();
    expect(retryWaits(transient!)).toEqual([...RETRY_BACKOFF_SECONDS]);
    expect(transient!.MaxAttempts).toBe(MAX_RETRIES);
    expect(transient!.JitterStrategy ?? "NONE").toBe("NONE");
  });

  test("429: the throttle path uses the same backoff steps and gives up after 5 retries", () => {
    const plan = JSON.stringify(parent.States["ThrottlePlan"]?.Parameters);
    expect(plan).toContain(`States.Array(${RETRY_BACKOFF_SECONDS.join(", ")})`);
    expect(parent.States["ThrottleBudget"]?.Choices).toEqual([
      expect.objectContaining({ Variable: "$.cursor.throttle_attempts", NumericGreaterThan: MAX_RETRIES }),
    ]);
  });

  test("401 and the other hard failures are not retried: only transient names are in Retry blocks", () => {
    const retried = [...Object.values(parent.States), ...Object.values(pages.States)].flatMap((state) => state.Retry?.flatMap((retrier) => retrier.ErrorEquals) ?? []);
    for (const name of ["SourceAuthError", "SourceHardError", "SourceRedirectError", "SourceNotImplementedError", "PageValidationError", "PaginationError", "SourceThrottledError", "RunSupersededError", "SyncSinceChangedError"]) {
      expect(retried).not.toContain(name);
    }
    expect(states["SyncPage"]?.Catch?.[0]).toMatchObject({
      ErrorEquals: ["SourceAuthError", "ConnectionNotFoundError", "TokenDecryptionError", "SyncSinceChangedError"],
      Next: "StopRun",
    });
  });

  test("every error name in the definition is a typed error of lambdas/domain/core/errors.ts or a Step Functions / Lambda name", () => {
    // The stable `name` an instance carries is what ErrorEquals matches.
    const ours = new Set(
      Object.values(errors)
        .filter((value) => typeof value === "function" && value.prototype instanceof Error && !isAbstract(value))
        .map((ErrorClass) => new (ErrorClass as new (...args: unknown[]) => Error)("detail", 1, "rule").name),
    );
    const named = [...Object.values(parent.States), ...Object.values(pages.States)].flatMap((state) => [
      ...(state.Retry?.flatMap((retrier) => retrier.ErrorEquals) ?? []),
      ...(state.Catch?.flatMap((catcher) => catcher.ErrorEquals) ?? []),
    ]);
    for (const name of named) {
      if (name.startsWith("States.") || name.startsWith("Lambda.") || name.startsWith("StepFunctions.")) continue;
      expect(ours, `${name} is not an error class`).toContain(name);
    }
  });

  test("every Lambda Task state is in the page loop and has a handler, and its Resource is a deploy-time substitution", () => {
    const handlers = makeSyncHandlers({} as never);
    const isLambda = (state: State) => state.Type === "Task" && state.Resource?.startsWith("${");
    // The Standard parent invokes no Lambda: its Tasks are the two Step Functions integrations.
    expect(Object.values(parent.States).filter(isLambda)).toEqual([]);
    const lambdaTasks = Object.entries(pages.States).filter(([, state]) => isLambda(state));
    expect(lambdaTasks.map(([name]) => name).sort()).toEqual(Object.keys(handlers).sort());
    for (const [name, state] of lambdaTasks) expect(state.Resource, name).toMatch(/^\$\{[A-Za-z]+FunctionArn\}$/);
  });
});
