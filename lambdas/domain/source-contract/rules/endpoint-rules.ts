import { rule } from "../rule";
import type { SourceResponse } from "../source-response";

interface EndpointAnswer {
  readonly required: boolean;
  readonly response: SourceResponse;
}

/** /pipelines, /users, /contacts and /leads answer 200: anything else fails the sync. */
export const requiredPresent = rule<EndpointAnswer>({
  id: "endpoint.required-present",
  severity: "error",
  spec: "Endpoints > Source API",
  fix: "Implement /pipelines, /users, /contacts and /leads and answer 200 with the envelope.",
  check: ({ required, response }) =>
    !required || response.status === 200
      ? null
      : `a required endpoint answered ${response.status} to page 1: implement it and answer 200 with the envelope; the service fails the whole sync without it`,
});

/** /tasks, /calls and /events answer 200, or 404 when not implemented; anything else fails the entity. */
export const optional200Or404 = rule<EndpointAnswer>({
  id: "endpoint.optional-200-or-404",
  severity: "error",
  spec: "Endpoints > Source API; Sync outcome",
  fix: "Answer 200 from /tasks, /calls and /events when they are implemented, 404 when not.",
  check: ({ required, response }) =>
    required || response.status === 200 || response.status === 404
      ? null
      : `an optional endpoint answered ${response.status}: answer 200 when it is implemented, 404 when it is not`,
});

/** A query that selects nothing is 200 with `data: []` and `has_more: false`, never 404. */
export const emptyIs200 = rule<{ readonly response: SourceResponse }>({
  id: "endpoint.empty-is-200",
  severity: "error",
  spec: "Endpoints > Source API",
  fix: "Answer a query that selects nothing with 200 and {\"data\": [], \"has_more\": false}, never 404.",
  check: ({ response }) => {
    if (response.status !== 200) {
      return `a query that selects no record (updated_since in the future) got ${response.status}: answer 200 with {"data": [], "has_more": false}, never 404`;
    }
    // Records here are incremental.filtered's to report, a bad has_more envelope.has-more-boolean's.
    const data = (response.json as { data?: unknown } | undefined)?.data;
    return Array.isArray(data) ? null : `a query that selects no record got 200 without a data array: send {"data": [], "has_more": false}`;
  },
});
