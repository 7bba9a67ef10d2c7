import { rule } from "../rule";

/** What one webhook attempt got: the receiver's status, or why no answer came. */
export type WebhookAttemptObservation =
  | { readonly kind: "response"; readonly status: number }
  | { readonly kind: "timeout"; readonly timeoutMs: number }
  | { readonly kind: "connection" }
  | { readonly kind: "address-refused" };

/**
 * The owner's own receiver (docs/webhooks.md) keeps a contract too, outside the spec: a delivery is answered
 * with a 2xx in time, and the endpoint lives at a public address. A failed attempt names one of these.
 */
export const webhookAnswers = rule<WebhookAttemptObservation>({
  id: "webhook.answers",
  severity: "error",
  spec: "Not in the spec: the service's webhooks (docs/webhooks.md)",
  fix: "Answer each delivery with a 2xx status within 10 seconds, then do the work; a delivery not answered so is sent again, five attempts in all.",
  check: (observed) => {
    if (observed.kind === "response") {
      return observed.status >= 200 && observed.status < 300 ? null : `the endpoint answered ${observed.status}, not a 2xx status`;
    }
    if (observed.kind === "timeout") return `the endpoint did not answer within ${observed.timeoutMs / 1000} seconds`;
    if (observed.kind === "connection") return "the connection to the endpoint failed before it answered";
    return null;
  },
});

export const webhookAddressPublic = rule<WebhookAttemptObservation>({
  id: "webhook.address-public",
  severity: "error",
  spec: "Not in the spec: the service's webhooks (docs/webhooks.md)",
  fix: "Register an endpoint whose host name resolves to public addresses only: the service never sends to private, loopback or link-local ones.",
  check: (observed) =>
    observed.kind === "address-refused" ? "the endpoint's host name resolves to an address the service never sends to (private, loopback or link-local)" : null,
});

export const WEBHOOK_RULES = [webhookAnswers, webhookAddressPublic] as const;
