import { MAX_RETRIES } from "../../core/limits";
import { rule } from "../rule";
import type { SourceResponse } from "../source-response";

/** The kit never exceeds the declared rate, so any 429 means the source cannot take it. */
export const rateDeclared = rule<{ readonly response: SourceResponse; readonly rate: number }>({
  id: "rate.declared",
  severity: "warning",
  spec: "Limits (request rate); Errors > Status codes (429)",
  fix: "Declare a rate_limit the source sustains, or raise the source's own limit to it.",
  check: ({ response, rate }) =>
    response.status === 429
      ? `answered 429 while the kit stayed within ${rate} requests per second: declare a rate_limit the source really sustains, or raise the source's own limit`
      : null,
});

/** A 429 says when to come back. */
export const rateRetryAfter = rule<{ readonly response: SourceResponse }>({
  id: "rate.retry-after",
  severity: "warning",
  spec: "Errors > Status codes (429)",
  fix: "Send Retry-After in whole seconds with every 429.",
  check: ({ response }) =>
    response.status === 429 && (response.retryAfter === null || response.retryAfter.trim() === "")
      ? "a 429 came without Retry-After: send Retry-After in whole seconds so the service waits as long as needed"
      : null,
});

/** Still 429 after the service's retries: the entity fails. */
export const rateRetriesExhausted = rule<{ readonly response: SourceResponse }>({
  id: "rate.retries-exhausted",
  severity: "error",
  spec: "Errors > Status codes (429)",
  fix: "Let a client that keeps within its declared rate through within 5 retries.",
  check: ({ response }) =>
    response.status === 429
      ? `still 429 after ${MAX_RETRIES} retries honouring Retry-After: the service fails the entity; let a client within its declared rate through`
      : null,
});
