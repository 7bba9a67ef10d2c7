import type { SyncEntity } from "../core/entities";
import { PAGE_SIZE } from "../core/limits";
import { entityDefinition } from "../source-contract/entity-catalog";
import type { Crawl } from "./crawl-endpoint";
import { idOf, instantOf, pageOf, type PreflightContext } from "./preflight-context";
import { emptyIs200 } from "../source-contract/rules/endpoint-rules";
import { filtered, inclusive, offsetHonoured, type TimedRecord } from "../source-contract/rules/incremental-rules";
import type { SourceResponse } from "../source-contract/source-response";

/** Late enough to select nothing. */
const FUTURE_SINCE = "2999-01-01T00:00:00+00:00";
/** Offsets the same instant is also written with: one ahead of UTC, one behind, neither whole hours. */
const PROBE_OFFSETS_MINUTES = [5 * 60 + 30, -4 * 60];
/** The pivot is this many records from the end, so one page holds everything from it on. */
const PIVOT_FROM_END = 50;

/** `instant` written with a given offset from UTC, e.g. 2026-02-03T13:30:00+05:30. */
export function withOffset(instant: number, offsetMinutes: number): string {
  const local = new Date(instant + offsetMinutes * 60_000).toISOString().slice(0, 19);
  const sign = offsetMinutes < 0 ? "-" : "+";
  const abs = Math.abs(offsetMinutes);
  return `${local}${sign}${String(Math.floor(abs / 60)).padStart(2, "0")}:${String(abs % 60).padStart(2, "0")}`;
}

/**
 * A record late in the crawl with an older one before it, stamped on a whole
 * second (a source may not read fractions): `updated_since` at its instant
 * must select it and nothing older.
 */
function pivotOf(crawl: Crawl): (TimedRecord & { at: number }) | undefined {
  const stamped = crawl.timed.filter((r): r is TimedRecord & { at: number } => r.at !== null).sort((a, b) => a.at - b.at);
  const oldest = stamped[0]?.at;
  return stamped.slice(Math.max(1, stamped.length - PIVOT_FROM_END)).find((r) => r.at > oldest! && r.at % 1000 === 0);
}

/** The updated_since rules of one incremental endpoint: empty result, inclusive, filtered, offsets. */
export async function probeUpdatedSince(context: PreflightContext, entity: SyncEntity, crawl: Crawl): Promise<void> {
  const { findings } = context;
  const path = entityDefinition(entity).path;
  const query = (since: string) => context.get(path, context.urlOf(path, { limit: PAGE_SIZE, page: 1, updated_since: since }));
  const timedRecords = (response: SourceResponse): TimedRecord[] =>
    (pageOf(response)?.data ?? []).map((raw, index) => ({ id: idOf(raw, index), at: instantOf(entity, raw), page: 1 }));

  const empty = await query(FUTURE_SINCE);
  findings.apply(emptyIs200, path, { response: empty }, empty.request);

  const pivot = pivotOf(crawl);
  if (pivot === undefined) return;
  const zForm = new Date(pivot.at).toISOString().replace(".000Z", "Z");
  const zResponse = await query(zForm);
  const returned = timedRecords(zResponse);
  const since = { status: zResponse.status, since: pivot.at, pivotId: pivot.id, returned };
  findings.apply(inclusive, path, since, zResponse.request);
  findings.apply(filtered, path, since, zResponse.request);

  const others = [];
  let offsetRequest = zResponse.request;
  for (const minutes of PROBE_OFFSETS_MINUTES) {
    const form = withOffset(pivot.at, minutes);
    const response = await query(form);
    others.push({ form, status: response.status, ids: timedRecords(response).map((r) => r.id).sort() });
    offsetRequest = response.request;
  }
  const zIds = returned.map((r) => r.id).sort();
  findings.apply(offsetHonoured, path, { zStatus: zResponse.status, zForm, zIds, others }, offsetRequest);
}
