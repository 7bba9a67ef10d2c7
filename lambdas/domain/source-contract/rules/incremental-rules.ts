import { rule } from "../rule";

/** A record as an incremental endpoint served it: its id and compared instant (epoch ms; null when unparseable). */
export interface TimedRecord {
  readonly id: string;
  readonly at: number | null;
  readonly page: number;
}

const iso = (ms: number): string => new Date(ms).toISOString();

/** Ascending by the compared timestamp, within a page and across pages. */
export const ascending = rule<{ readonly records: readonly TimedRecord[] }>({
  id: "incremental.ascending",
  severity: "error",
  spec: "Source API > Incremental rules 2",
  fix: "Order records by updated_at ascending (ties by id), within and across pages.",
  check: ({ records }) => {
    let last: TimedRecord | undefined;
    for (const record of records) {
      if (record.at === null) continue; // record.updated-at reports those
      if (last !== undefined && record.at < last.at!) {
        const where = record.page === last.page ? `within page ${record.page}` : `from page ${last.page} to page ${record.page}`;
        return `record ${record.id} (${iso(record.at)}) came after record ${last.id} (${iso(last.at!)}), a step back ${where}: order by updated_at ascending (ties by id); a backwards step fails the entity and can skip records`;
      }
      last = record;
    }
    return null;
  },
});

/** The query selected with `updated_since = T`, next to the record stamped exactly T. */
export interface SinceObservation {
  /** Status of the answer to `updated_since = T` written with Z. */
  readonly status: number;
  readonly since: number;
  readonly pivotId: string;
  readonly returned: readonly TimedRecord[];
}

/** `updated_at >= updated_since`: the record stamped exactly at updated_since is returned. */
export const inclusive = rule<SinceObservation>({
  id: "incremental.inclusive",
  severity: "error",
  spec: "Source API > Incremental rules 1",
  fix: "Select records with updated_at >= updated_since (inclusive), not >.",
  // A page that starts before updated_since is incremental.filtered's finding, and says nothing of this one.
  check: ({ status, since, pivotId, returned }) => {
    if (status !== 200) return `updated_since=${iso(since)} got ${status}: accept ISO-8601 with Z as well as with an offset`;
    return returned.some((record) => record.id === pivotId) || returned.some((record) => record.at !== null && record.at < since)
      ? null
      : `record ${pivotId}, stamped exactly ${iso(since)}, was not returned for updated_since=${iso(since)}: compare with >=, not >; the service's watermark is the last record's own timestamp`;
  },
});

/** Only records at or after updated_since are returned. */
export const filtered = rule<SinceObservation>({
  id: "incremental.filtered",
  severity: "error",
  spec: "Source API > Incremental rules 1",
  fix: "Return only records with updated_at >= updated_since.",
  check: ({ since, returned }) => {
    const older = returned.find((record) => record.at !== null && record.at < since);
    return older === undefined
      ? null
      : `record ${older.id} (${iso(older.at!)}) was returned for updated_since=${iso(since)}: return only records with updated_at >= updated_since (every sync re-reads everything otherwise)`;
  },
});

/** The same instant written with Z and with an offset selects the same records. */
export const offsetHonoured = rule<{
  /** Status of the Z form's answer: when not 200, incremental.inclusive reports it and there is nothing to compare. */
  readonly zStatus: number;
  readonly zForm: string;
  readonly zIds: readonly string[];
  readonly others: readonly { readonly form: string; readonly status: number; readonly ids: readonly string[] }[];
}>({
  id: "incremental.offset-honoured",
  severity: "error",
  spec: "Source API > Incremental rules; Endpoints (updated_since with offset)",
  fix: "Parse the offset of updated_since (+HH:MM or -HH:MM; + arrives as %2B) instead of dropping it.",
  check: ({ zStatus, zForm, zIds, others }) => {
    if (zStatus !== 200) return null;
    const refused = others.find(({ status }) => status !== 200);
    if (refused !== undefined) return `updated_since=${refused.form} got ${refused.status}: accept any offset (+HH:MM / -HH:MM), percent-decoded (+ arrives as %2B)`;
    const differs = others.find(({ ids }) => ids.length !== zIds.length || ids.some((id, i) => id !== zIds[i]));
    return differs === undefined
      ? null
      : `updated_since=${differs.form} selected ${differs.ids.length} records on page 1 but the same instant as ${zForm} selected ${zIds.length}: parse the offset (+HH:MM / -HH:MM) instead of dropping it; the service sends +00:00 today but any offset is valid`;
  },
});
