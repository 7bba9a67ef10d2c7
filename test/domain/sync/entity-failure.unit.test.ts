import { describe, expect, test } from "vitest";
import {
  errorNameOf,
  PageValidationError,
  SourceAuthError,
  SourceHardError,
  SourceTransientError,
  StoreUnavailableError,
} from "../../../lambdas/domain/core/errors";
import { ERROR_DETAIL_MAX_CHARS } from "../../../lambdas/domain/core/limits";
import { RULES_BY_ID } from "../../../lambdas/domain/source-contract/rules/catalog";
import { caughtFailure, failureOfThrown, withFailureMessage } from "../../../lambdas/domain/sync/entity-failure";
import { RULE_OF_ERROR_CLASS } from "../../../lambdas/domain/sync/error-classes";
import { faultOfErrorClass } from "../../../lambdas/domain/sync/failure-fault";
import { syncErrorClasses } from "../../support/sync-error-classes";
import { ENVELOPE_RULE_IDS } from "../../../lambdas/domain/source-contract/envelope";

/** What a Catch hands EntityFailed for an error the SyncPage handler threw: the Lambda error envelope, as AWS and the local engine build it. */
function caught(error: Error) {
  const thrown = withFailureMessage(error) as Error;
  return { Error: thrown.name, Cause: JSON.stringify({ errorType: thrown.name, errorMessage: thrown.message, trace: [] }) };
}

const CLASS_NAME = /\b\w+(Error|Exception)\b/;

describe("every failure names its rule and its fix", () => {
  test("record.id: an id of 300 characters still leaves the field and the rule inside the 300-character detail", () => {
    const id = "a".repeat(300);
    const failure = caughtFailure(caught(new PageValidationError(id, "id", "must be at most 255 characters", { ruleId: "record.id" })));
    expect([...failure.detail].length).toBeLessThanOrEqual(ERROR_DETAIL_MAX_CHARS);
    expect(failure.detail).toMatch(/^record a{60}…, field id, rule record\.id: must be at most 255 characters$/);
    // The failure keeps the id up to the spec's 255 characters, marked as cut.
    expect(failure).toMatchObject({ rule: "record.id", record_id: `${"a".repeat(255)}…`, field: "id", fix: RULES_BY_ID.get("record.id")!.fix });
  });

  test("record.fields: a record without a usable id is named by its place, with no record_id", () => {
    const failure = caughtFailure(caught(new PageValidationError("#3", "name", "must be a string", { ruleId: "record.fields", idUsable: false })));
    expect(failure).toMatchObject({ rule: "record.fields", record_id: null, field: "name" });
    expect(failure.detail).toBe("record without an id (#3: no usable id), field name, rule record.fields: must be a string");
  });

  test("auth.token-accepted: a 401 says the token was refused, with the fix, and no class name", () => {
    const failure = caughtFailure(caught(new SourceAuthError("invalid token", { httpStatus: 401 })));
    expect(failure).toEqual({
      rule: "auth.token-accepted",
      record_id: null,
      field: null,
      detail: "the source refused the token (401): invalid token",
      fix: RULES_BY_ID.get("auth.token-accepted")!.fix,
      sourceDown: false,
    });
    expect(failure.detail).not.toMatch(CLASS_NAME);
  });

  test("service.available: our busy store is ours in words, never the store's own error names", () => {
    const failure = caughtFailure(caught(new StoreUnavailableError("ThrottlingException: Rate of requests exceeds the allowed throughput")));
    expect(failure.rule).toBe("service.available");
    expect(failure.detail).toBe("the service's own store was busy through its retries; nothing is wrong with the source");
  });

  test("service.completes: a Task time-out or a bug (no failure in its Cause) is ours, without its message", () => {
    expect(caughtFailure({ Error: "States.Timeout", Cause: "" })).toMatchObject({ rule: "service.completes", detail: "the service failed on its side; nothing is wrong with the source" });
    const bug = caughtFailure({ Error: "TypeError", Cause: JSON.stringify({ errorType: "TypeError", errorMessage: "Cannot read properties of undefined", trace: [] }) });
    expect(bug).toMatchObject({ rule: "service.completes" });
    expect(bug.detail).not.toContain("Cannot read");
  });

  test("rate.retries-exhausted: the parent's plain Cause after the sixth 429 falls back to the class's rule", () => {
    const failure = caughtFailure({ Error: "SourceThrottledError", Cause: "slow down" });
    expect(failure).toMatchObject({ rule: "rate.retries-exhausted", detail: "the source still answered 429 after 5 retries: slow down" });
  });

  test("source.server-errors-recover, source.status-200: a status refines the class's rule", () => {
    expect(failureOfThrown(new SourceTransientError("HTTP 503", { httpStatus: 503 })).rule).toBe("source.server-errors-recover");
    expect(failureOfThrown(new SourceTransientError("connection refused")).rule).toBe("source.reachable");
    expect(failureOfThrown(new SourceHardError("forbidden", { httpStatus: 403 }))).toMatchObject({ rule: "source.status-200", detail: "the source refused the request (HTTP 403): forbidden" });
  });

  test("the carried failure keeps the error's class and name, so the definition's Retry and Catch still match by name", () => {
    const error = new SourceTransientError("connection refused");
    const thrown = withFailureMessage(error);
    expect(thrown).toBe(error);
    expect((thrown as Error).name).toBe("SourceTransientError");
  });

  test("the envelope's rule ids, named where the schema is, are the catalog's", () => {
    for (const id of Object.values(ENVELOPE_RULE_IDS)) expect(RULES_BY_ID.get(id)?.id, id).toBe(id);
  });

  test("every rule a class names is in the catalog, and a class the customer's source causes never names a rule of ours", async () => {
    for (const [name, rule] of Object.entries(RULE_OF_ERROR_CLASS)) expect(RULES_BY_ID.has(rule), `${name}: ${rule}`).toBe(true);
    for (const errorClass of await syncErrorClasses()) {
      const name = errorNameOf(errorClass);
      if (faultOfErrorClass(name) !== "customer") continue;
      expect(RULE_OF_ERROR_CLASS[name], name).toBeDefined();
      expect(RULE_OF_ERROR_CLASS[name], name).not.toMatch(/^service\./);
    }
  });
});
