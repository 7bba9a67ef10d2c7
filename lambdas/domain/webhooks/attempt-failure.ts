import { webhookAddressPublic, webhookAnswers, type WebhookAttemptObservation } from "../source-contract/rules/webhook-rules";
import { WEBHOOK_REQUEST_TIMEOUT_MS } from "./webhook-limits";
import { WebhookAddressRefusedError, WebhookTimeoutError, type SendOutcome } from "./webhook-ports";

/** Why an attempt failed, as the owner reads it: the rule from the one catalog, what happened, and the fix. */
export interface AttemptFailure {
  readonly rule: string;
  readonly detail: string;
  readonly fix: string;
}

/** Null for a delivered attempt (a 2xx). Errors are matched by class; any other send error is a failed connection. */
export function attemptFailure(outcome: SendOutcome): AttemptFailure | null {
  const observed: WebhookAttemptObservation =
    outcome.kind === "response"
      ? { kind: "response", status: outcome.status }
      : outcome.error instanceof WebhookTimeoutError
        ? { kind: "timeout", timeoutMs: WEBHOOK_REQUEST_TIMEOUT_MS }
        : outcome.error instanceof WebhookAddressRefusedError
          ? { kind: "address-refused" }
          : { kind: "connection" };
  for (const rule of [webhookAddressPublic, webhookAnswers]) {
    const detail = rule.check(observed);
    if (detail !== null) return { rule: rule.id, detail, fix: rule.fix };
  }
  return null;
}
