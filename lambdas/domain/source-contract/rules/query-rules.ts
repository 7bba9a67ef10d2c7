import { PAGE_SIZE } from "../../core/limits";
import { rule } from "../rule";

/*
 * The query the service itself sends: limit=100, page=N and (incremental
 * endpoints) updated_since=<YYYY-MM-DD>T<HH:MM:SS>+00:00. When a source
 * refuses that query, these rules name the parameter it refused, found by
 * asking again with that one parameter changed (diagnose-query.ts).
 */

/** The status that answered the query as the service sends it, and the answer with one parameter left out or changed. */
export interface QueryProbe {
  readonly refusedStatus: number;
  /** The same request without the parameter (or with it in another form); null when not tried. */
  readonly withoutStatus: number | null;
  /** The parameter as sent, e.g. `updated_since=1970-01-01T00:00:00+00:00`. */
  readonly sent: string;
  /** What was tried instead, e.g. `no updated_since` or `updated_since=...Z`. */
  readonly tried: string;
}

const SPEC = "Endpoints > Source API (limit, page, updated_since)";

function queryRule(id: string, what: string, fix: string) {
  return rule<QueryProbe>({
    id,
    severity: "error",
    spec: SPEC,
    fix,
    check: ({ refusedStatus, withoutStatus, sent, tried }) =>
      withoutStatus === 200
        ? `the query the service sends got ${refusedStatus} but ${tried} got 200: the source refuses ${what} (${sent}); ${fix[0]!.toLowerCase()}${fix.slice(1)}`
        : null,
  });
}

export const queryUpdatedSince = queryRule(
  "query.updated-since",
  "the form of updated_since the service sends",
  "Accept updated_since as the service sends it: <YYYY-MM-DD>T<HH:MM:SS>+00:00, percent-encoded (+ as %2B).",
);
export const queryLimit = queryRule("query.limit", `limit=${PAGE_SIZE}`, `Accept limit=${PAGE_SIZE} on every endpoint (the service always sends it).`);
export const queryPage = queryRule("query.page", "the page number", "Accept every page number from 1 up (page=1, 2, 3, ...).");

export const QUERY_RULES = [queryUpdatedSince, queryLimit, queryPage];
