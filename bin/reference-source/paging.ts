/**
 * The spec's Paging and Incremental rules as two pure functions, so that any
 * source (this server, a test double) answers the same way:
 *
 *  - `changedSince`: records whose compared timestamp is >= updated_since
 *    (inclusive), ascending by that timestamp, ties broken by id. The id
 *    tiebreak matters: without it two records stamped in the same second
 *    could swap places between two requests and one of them would be served
 *    twice while the other is skipped.
 *  - `pageOf`: 1-based offset paging; `hasMore` only when a later page holds
 *    at least one record, never "true on a page with no successor".
 */

export interface Page<T> {
  readonly data: T[];
  readonly hasMore: boolean;
}

/**
 * `records` filtered to compared >= `since` (epoch ms; null keeps all) and
 * sorted ascending by (compared, id). `comparedAt` gives a record's instant in
 * epoch ms; for events that is updated_at when sent, else created_at.
 */
export function changedSince<T>(
  records: readonly T[],
  since: number | null,
  comparedAt: (record: T) => number,
  idOf: (record: T) => string = (record) => String((record as { id?: unknown }).id ?? ""),
): T[] {
  // Read each timestamp once, not once per comparison.
  const keyed = records.map((record) => ({ record, at: comparedAt(record), id: idOf(record) }));
  const kept = since === null ? keyed : keyed.filter((entry) => entry.at >= since);
  // Plain `<` on ids: locale-independent, the same order on every machine.
  kept.sort((a, b) => a.at - b.at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return kept.map((entry) => entry.record);
}

/** Page `page` (1-based) of `limit` records. A page past the end is empty with hasMore false. */
export function pageOf<T>(ordered: readonly T[], page: number, limit: number): Page<T> {
  const start = (page - 1) * limit;
  return { data: ordered.slice(start, start + limit), hasMore: start + limit < ordered.length };
}
