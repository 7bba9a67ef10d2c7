/** The newest-first value of a record without a valid updated_at or created_at: below every ISO date, so listed last. */
export const UNDATED_NEWEST_VALUE = "0";

/**
 * What "newest" means for the records explorer: the record's `updated_at`
 * (leads, contacts, tasks, calls, events), else its `created_at`, as
 * `toISOString()` so that string order is time order whatever the source's
 * format (`...00Z` and `...00.5Z` compare right). Collections with neither
 * (pipelines, stages, users, loss_reasons) get UNDATED_NEWEST_VALUE.
 */
export function recordNewestValue(doc: Readonly<Record<string, unknown>>): string {
  for (const field of ["updated_at", "created_at"]) {
    const value = doc[field];
    if (typeof value !== "string" || value === "") continue;
    const time = Date.parse(value);
    if (Number.isFinite(time)) return new Date(time).toISOString();
  }
  return UNDATED_NEWEST_VALUE;
}
