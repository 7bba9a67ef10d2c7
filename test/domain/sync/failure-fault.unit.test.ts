import { describe, expect, test } from "vitest";
import * as coreErrors from "../../../lambdas/domain/core/errors";
import { classifyCaught, classifyThrown, faultOfErrorClass } from "../../../lambdas/domain/sync/failure-fault";
import { FAULT_OF_ERROR_CLASS } from "../../../lambdas/domain/sync/error-classes";
import { syncErrorClasses } from "../../support/sync-error-classes";

describe("failure fault: whose failure it is, by error class", () => {
  test.each([
    // The customer's: their source's answers (401, 4xx, 5xx, 429, timeouts), their data, their changes.
    ["SourceAuthError", "customer"],
    ["SourceNotImplementedError", "customer"],
    ["SourceThrottledError", "customer"],
    ["SourceTransientError", "customer"],
    ["SourceHardError", "customer"],
    ["SourceRedirectError", "customer"],
    ["SourceAddressRefusedError", "customer"],
    ["PageValidationError", "customer"],
    ["RecordTooLargeError", "customer"],
    ["PaginationError", "customer"],
    ["ConnectionNotFoundError", "customer"],
    ["SyncSinceChangedError", "customer"],
    // Ours: the store, the key, the rate limiter, Step Functions, Lambda, a bug.
    ["StoreUnavailableError", "ours"],
    ["TokenDecryptionError", "ours"],
    ["RunSupersededError", "ours"],
    ["RateLimitSlotsStaleError", "ours"],
    ["SyncQueueUnavailableError", "ours"],
    ["States.Timeout", "ours"],
    ["States.TaskFailed", "ours"],
    ["Lambda.Unknown", "ours"],
    ["Lambda.ServiceException", "ours"],
    ["ResourceNotFoundException", "ours"],
    ["AccessDeniedException", "ours"],
    ["TypeError", "ours"],
    ["Error", "ours"],
  ] as const)("%s is the %s", (errorClass, fault) => {
    expect(faultOfErrorClass(errorClass)).toBe(fault);
    expect(classifyCaught({ Error: errorClass, Cause: "x" })).toEqual({ error_class: errorClass, fault });
  });

  test("every SyncError class of the sync is judged explicitly (a new one must be added to FAULT_OF_ERROR_CLASS)", async () => {
    const names = (await syncErrorClasses()).map(coreErrors.errorNameOf);
    // Found by walking the modules' exports: the ones outside core/errors.ts too.
    expect(names).toContain("InvalidTaskEventError");
    expect(names).toContain("SourceAddressRefusedError");
    expect(names.length).toBeGreaterThanOrEqual(18);
    expect(names.filter((name) => !Object.hasOwn(FAULT_OF_ERROR_CLASS, name))).toEqual([]);
  });

  test("a thrown error is classified by its class: a typed error by its name, an AWS SDK error by its name, anything else as ours", () => {
    expect(classifyThrown(new coreErrors.SourceTransientError("503"))).toEqual({ error_class: "SourceTransientError", fault: "customer" });
    expect(classifyThrown(new coreErrors.StoreUnavailableError("throttled"))).toEqual({ error_class: "StoreUnavailableError", fault: "ours" });
    const sdk = Object.assign(new Error("Requested resource not found"), { name: "ResourceNotFoundException" });
    expect(classifyThrown(sdk)).toEqual({ error_class: "ResourceNotFoundException", fault: "ours" });
    expect(classifyThrown("a string")).toEqual({ error_class: "Error", fault: "ours" });
  });

  test("a name that only looks like an own property of the table is not a customer's (Object.hasOwn, not `in`)", () => {
    expect(faultOfErrorClass("toString")).toBe("ours");
    expect(faultOfErrorClass("constructor")).toBe("ours");
  });
});
