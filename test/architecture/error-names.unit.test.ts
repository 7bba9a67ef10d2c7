import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { errorNameOf, SyncError } from "../../lambdas/domain/core/errors";
import { BUSY_AWS_ERROR_NAMES } from "../../lambdas/adapters/aws/aws-busy-errors";
import { sourceFiles } from "../support/source-files";
import { syncErrorClasses } from "../support/sync-error-classes";

const ASL_FILES = sourceFiles("statemachine", ".asl.json");

/** Every ErrorEquals of a definition, with whether it is a Retry's or a Catch's, at any depth (Map, Parallel). */
function errorEquals(node: unknown, found: { name: string; in: "Retry" | "Catch" }[] = []): { name: string; in: "Retry" | "Catch" }[] {
  if (Array.isArray(node)) for (const item of node) errorEquals(item, found);
  else if (typeof node === "object" && node !== null) {
    for (const [key, value] of Object.entries(node)) {
      if ((key === "Retry" || key === "Catch") && Array.isArray(value)) {
        for (const rule of value as { ErrorEquals: string[] }[]) for (const name of rule.ErrorEquals) found.push({ name, in: key });
      }
      errorEquals(value, found);
    }
  }
  return found;
}

/** Names Step Functions and the services it calls give their own errors (States.ALL, Lambda.ServiceException, StepFunctions.ExecutionLimitExceeded...). */
const AWS_ERROR = /^(States|Lambda|StepFunctions)\.\w+$/;

/**
 * Retryable, yet in no Retry list, because no Task state throws them: SyncPage
 * returns a 429 as the "throttled" outcome (the definition waits Retry-After),
 * and startSync's refusal goes to the API (503) and the tick's claims only.
 */
const RETRIED_OUTSIDE_ASL_RETRY = ["SourceThrottledError", "SyncQueueUnavailableError"];

const retryableOf = (errorClass: new (...args: never[]) => Error): boolean =>
  (new (errorClass as unknown as new (text: string) => SyncError)("")).retryable;

test("every ErrorEquals name of the three ASL files is a States.* or AWS service name, or the name of one of our error classes", async () => {
  expect(ASL_FILES).toHaveLength(3);
  const ours = new Set((await syncErrorClasses()).map(errorNameOf));
  const names = ASL_FILES.flatMap((path) => errorEquals(JSON.parse(readFileSync(path, "utf8"))).map((rule) => ({ ...rule, path })));
  // The scan must see what it guards: our names and AWS's.
  expect(names.some((rule) => ours.has(rule.name))).toBe(true);
  expect(names.some((rule) => AWS_ERROR.test(rule.name))).toBe(true);
  expect(names.filter((rule) => !AWS_ERROR.test(rule.name) && !ours.has(rule.name))).toEqual([]);
});

test("an error of ours is in an ASL Retry list exactly when its class is retryable", async () => {
  const classes = await syncErrorClasses();
  const retried = new Set(ASL_FILES.flatMap((path) => errorEquals(JSON.parse(readFileSync(path, "utf8")))).filter((rule) => rule.in === "Retry").map((rule) => rule.name));
  const retryable = classes.filter(retryableOf).map(errorNameOf);
  const notRetryable = classes.filter((errorClass) => !retryableOf(errorClass)).map(errorNameOf);
  expect(retryable).toContain("StoreUnavailableError");
  expect(retryable.filter((name) => !retried.has(name) && !RETRIED_OUTSIDE_ASL_RETRY.includes(name))).toEqual([]);
  expect(notRetryable.filter((name) => retried.has(name))).toEqual([]);
});

test("one list of busy AWS errors: no module but lambdas/adapters/aws/aws-busy-errors.ts names one", () => {
  expect(BUSY_AWS_ERROR_NAMES.size).toBeGreaterThan(5);
  const home = join("lambdas", "adapters", "aws", "aws-busy-errors.ts");
  const namers = sourceFiles("lambdas")
    .filter((path) => path !== home)
    .flatMap((path) => {
      const text = readFileSync(path, "utf8");
      return [...BUSY_AWS_ERROR_NAMES].filter((name) => new RegExp(`["'\`]${name}["'\`]`).test(text)).map((name) => `${path}: ${name}`);
    });
  expect(namers).toEqual([]);
});
