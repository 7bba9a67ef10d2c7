/**
 * Reads the query of a collection request: `limit`, `page` and, on the
 * incremental endpoints, `updated_since`. A value the source cannot honour is
 * a 400 with a message saying what is expected, never a silent default: a
 * client that sends `page=0` has a bug it should hear about.
 */
import { parseTimestamp } from "./timestamps";

export const MAX_LIMIT = 100;

export interface CollectionQuery {
  /** 1..100; default 100 (the service always sends 100). */
  readonly limit: number;
  /** 1-based; default 1. */
  readonly page: number;
  /** Epoch ms of updated_since; null when absent or not read (pipelines, users). */
  readonly updatedSince: number | null;
}

export type QueryResult = { readonly ok: true; readonly query: CollectionQuery } | { readonly ok: false; readonly error: string };

const WHOLE_NUMBER = /^[0-9]+$/;

function wholeNumber(text: string | null, fallback: number, min: number, max: number): number | null {
  if (text === null) return fallback;
  if (!WHOLE_NUMBER.test(text)) return null;
  const value = Number(text);
  return value >= min && value <= max ? value : null;
}

export function parseCollectionQuery(params: URLSearchParams, options: { readonly incremental: boolean }): QueryResult {
  const limit = wholeNumber(params.get("limit"), MAX_LIMIT, 1, MAX_LIMIT);
  if (limit === null) return { ok: false, error: `limit must be a whole number from 1 to ${MAX_LIMIT}` };
  const page = wholeNumber(params.get("page"), 1, 1, Number.MAX_SAFE_INTEGER);
  if (page === null) return { ok: false, error: "page must be a whole number >= 1" };

  // /pipelines and /users ignore updated_since entirely, even a malformed one (Incremental rules 5).
  const since = options.incremental ? params.get("updated_since") : null;
  if (since === null) return { ok: true, query: { limit, page, updatedSince: null } };
  const updatedSince = parseTimestamp(since);
  if (updatedSince === null) {
    // The usual culprit: an unencoded `+` in the offset arrives as a space.
    const hint = / \d{2}:\d{2}$/.test(since) ? " (percent-encode the + of the offset as %2B)" : "";
    return {
      ok: false,
      error: `updated_since must be an ISO-8601 date-time with an offset, e.g. 2026-01-01T00:00:00+00:00${hint}`,
    };
  }
  return { ok: true, query: { limit, page, updatedSince } };
}
