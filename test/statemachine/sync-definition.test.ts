import { describe, expect, test } from "vitest";
import * as errors from "../../lambdas/core/errors";
import { RETRY_BACKOFF_SECONDS, MAX_RETRIES } from "../../lambdas/core/limits";
import { validateDefinition } from "../../lambdas/local/step-functions/validate-definition";
import { loadSyncDefinition } from "../../statemachine/sync-definition";
import { makeSyncHandlers } from "../../lambdas/sync/handlers/sync-handlers";

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
const definition = loadSyncDefinition() as { StartAt: string; States: Record<string, State> };
const states = definition.States;

/** The backoff a Retry block waits before attempt n (1-based), as Step Functions computes it. */
const retryWaits = (retrier: Retrier) =>
  Array.from({ length: retrier.MaxAttempts ?? 3 }, (_, n) => (retrier.IntervalSeconds ?? 1) * (retrier.BackoffRate ?? 2) ** n);

const isAbstract = (value: unknown) => value === errors.SyncError;

describe("statemachine/sync.asl.json", () => {
  test("the definition passes asl-validator", () => {
    expect(validateDefinition(definition)).toEqual({ valid: true, errors: [] });
  });

  test("5xx, timeouts and connection errors: up to 5 retries after 1, 2, 4, 8, 16 s, without jitter", () => {
    const transient = states["FetchPage"]?.Retry?.find((retrier) => retrier.ErrorEquals.includes("SourceTransientError"));
    expect(transient).toBeDefined();
    expect(retryWaits(transient!)).toEqual([...RETRY_BACKOFF_SECONDS]);
    expect(transient!.MaxAttempts).toBe(MAX_RETRIES);
    expect(transient!.JitterStrategy ?? "NONE").toBe("NONE");
  });

  test("429: the throttle path uses the same backoff steps and gives up after 5 retries", () => {
    const plan = JSON.stringify(states["ThrottlePlan"]?.Parameters);
    expect(plan).toContain(`States.Array(${RETRY_BACKOFF_SECONDS.join(", ")})`);
    expect(states["ThrottleBudget"]?.Choices).toEqual([
      expect.objectContaining({ Variable: "$.cursor.throttle_attempts", NumericGreaterThan: MAX_RETRIES }),
    ]);
  });

  test("401 and the other hard failures are not retried: only transient names are in Retry blocks", () => {
    const retried = Object.values(states).flatMap((state) => state.Retry?.flatMap((retrier) => retrier.ErrorEquals) ?? []);
    for (const name of ["SourceAuthError", "SourceHardError", "SourceRedirectError", "SourceNotImplementedError", "PageValidationError", "PaginationError", "SourceThrottledError", "RunSupersededError", "SyncSinceChangedError"]) {
      expect(retried).not.toContain(name);
    }
    expect(states["FetchPage"]?.Catch?.[0]).toMatchObject({
      ErrorEquals: ["SourceAuthError", "ConnectionNotFoundError", "TokenDecryptionError", "SyncSinceChangedError"],
      Next: "StopRun",
    });
  });

  test("every error name in the definition is a typed error of lambdas/core/errors.ts or a Step Functions / Lambda name", () => {
    // The stable `name` an instance carries is what ErrorEquals matches.
    const ours = new Set(
      Object.values(errors)
        .filter((value) => typeof value === "function" && value.prototype instanceof Error && !isAbstract(value))
        .map((ErrorClass) => new (ErrorClass as new (...args: unknown[]) => Error)("detail", 1, "rule").name),
    );
    const named = Object.values(states).flatMap((state) => [
      ...(state.Retry?.flatMap((retrier) => retrier.ErrorEquals) ?? []),
      ...(state.Catch?.flatMap((catcher) => catcher.ErrorEquals) ?? []),
    ]);
    for (const name of named) {
      if (name.startsWith("States.") || name.startsWith("Lambda.")) continue;
      expect(ours, `${name} is not an error class`).toContain(name);
    }
  });

  test("every Lambda Task state has a handler, and its Resource is a deploy-time substitution", () => {
    const handlers = makeSyncHandlers({} as never);
    const lambdaTasks = Object.entries(states).filter(([, state]) => state.Type === "Task" && state.Resource?.startsWith("${"));
    expect(lambdaTasks.map(([name]) => name).sort()).toEqual(Object.keys(handlers).sort());
    for (const [name, state] of lambdaTasks) expect(state.Resource, name).toMatch(/^\$\{[A-Za-z]+FunctionArn\}$/);
  });
});
