/**
 * One correct source API for the preflight kit's tests, with a knob per
 * violation: each knob breaks exactly one rule of the spec, everything else
 * stays correct. Built on the loopback test server and the record builders.
 *
 *   const source = await startPreflightSource({ sinceExclusive: true });
 *   // source.baseUrl, source.token, source.requests
 */
import { afterAll } from "vitest";
import type { SyncEntity } from "../../lambdas/domain/core/entities";
import { parseTimestamp } from "../../lambdas/domain/records/fields/timestamp";
import { numberedRecords, pipelineRecord, stageRecord, userRecord, type RawRecord } from "../builders/source-records";
import { startSourceServer, type SourceReply, type SourceServer } from "./source-server";

export const PREFLIGHT_TOKEN = "pf-token-abcdefghijklmnopqrstuvwxyz";

const INCREMENTAL: readonly SyncEntity[] = ["contacts", "leads", "tasks", "calls", "events"];

export interface SourceSizes {
  readonly contacts: number;
  readonly leads: number;
  readonly tasks: number;
  readonly calls: number;
  readonly events: number;
}

/** Three pages of contacts and two of leads, so paging rules have pages to break. */
export const DEFAULT_SOURCE_SIZES: SourceSizes = { contacts: 230, leads: 120, tasks: 5, calls: 5, events: 5 };

export interface RecordPatch {
  readonly entity: SyncEntity;
  readonly index: number;
  /** Merged shallowly; an `undefined` value deletes the key. */
  readonly overrides: RawRecord;
}

export interface SourceKnobs {
  readonly sizes?: Partial<SourceSizes>;
  /** Endpoints answering 404 (not implemented). */
  readonly notImplemented?: readonly SyncEntity[];
  /** Breaks records: each patch edits one built record. */
  readonly patches?: readonly RecordPatch[];
  /** auth.missing-token-401: a request without Authorization is served (everywhere, or at this endpoint only). */
  readonly acceptMissingToken?: boolean | SyncEntity;
  /** auth.wrong-token-401: only the first N characters of the token are compared. */
  readonly tokenCompareChars?: number;
  /** A fixed status for an endpoint (JSON error body). */
  readonly status?: Partial<Record<SyncEntity, number>>;
  /** endpoint.empty-is-200: a query that selects nothing answers 404. */
  readonly emptyAs404?: boolean;
  /** envelope.json: this endpoint's 200 body is plain text. */
  readonly nonJson?: SyncEntity;
  /** envelope.utf8: this endpoint's 200 body carries one byte that is not UTF-8 (a Latin-1 é in the first name). */
  readonly latin1?: SyncEntity;
  /** envelope.data-array: this endpoint wraps its records in an object. */
  readonly dataNotArray?: SyncEntity;
  /** envelope.has-more-boolean: has_more as the string "true"/"false", or left out. */
  readonly hasMoreAs?: { readonly entity: SyncEntity; readonly mode: "string" | "missing" };
  /** paging.limit-honoured (more than 100) or page-cap (1 per page): records per page, whatever `limit` says. */
  readonly pageSize?: Partial<Record<SyncEntity, number>>;
  /** paging.no-repeat-page: page 2 repeats page 1. */
  readonly repeatPage?: SyncEntity;
  /** paging.no-duplicate-record: the last record of page 1 comes again on page 2. */
  readonly duplicateRecord?: SyncEntity;
  /** paging.has-more-successor: the last page says has_more true; the page after it is empty. */
  readonly hasMoreOnLastPage?: SyncEntity;
  /** incremental.inclusive: updated_at > updated_since instead of >=. */
  readonly sinceExclusive?: boolean;
  /** incremental.filtered: updated_since is ignored. */
  readonly sinceIgnored?: boolean;
  /** incremental.offset-honoured: the offset of updated_since is dropped (read as UTC). */
  readonly sinceOffsetIgnored?: boolean;
  /** incremental.inclusive / offset-honoured / query.updated-since: updated_since in this form answers 400 (zero-offset: the service's own +00:00). */
  readonly refuseSince?: "zulu" | "non-zero-offset" | "zero-offset";
  /** query.limit / query.page: the endpoint answers 400 to any limit, or to a page above 1. */
  readonly refuseQuery?: { readonly entity: SyncEntity; readonly param: "limit" | "page" };
  /** incremental.ascending: each page reversed, or the pages served last first. */
  readonly order?: "descending-within-page" | "pages-reversed";
  /** rate.*: every Nth authenticated request answers 429. */
  readonly throttleEvery?: number;
  /** Retry-After of those 429s; null sends none. Default "1". */
  readonly retryAfter?: string | null;
  /** error.body: errors answer as text/plain. */
  readonly errorBodyText?: boolean;
}

export type SourceData = Record<SyncEntity, RawRecord[]>;

/** `base` + `hours` hours, as the spec's offset form. */
function stamp(hours: number): string {
  return new Date(Date.UTC(2026, 0, 1) + hours * 3_600_000).toISOString().replace(".000Z", "+00:00");
}

function patched(record: RawRecord, overrides: RawRecord): RawRecord {
  const out = { ...record, ...overrides };
  for (const [key, value] of Object.entries(overrides)) if (value === undefined) delete out[key];
  return out;
}

/** The correct data: two pipelines (leads use the first), two users, and timestamps one hour apart. */
export function buildSourceData(sizes: SourceSizes, patches: readonly RecordPatch[] = []): SourceData {
  const data: SourceData = {
    pipelines: [
      pipelineRecord(),
      pipelineRecord({
        id: "pipeline-2",
        name: "Renewals",
        stages: [stageRecord({ id: "renewal-open", kind: "open" }), stageRecord({ id: "renewal-won", kind: "won", sort: 2 })],
      }),
    ],
    users: [userRecord(), userRecord({ id: "user-2", name: "Ben Jones", email: "ben@example.com" })],
    contacts: numberedRecords("contacts", sizes.contacts, (i) => ({ created_at: stamp(i), updated_at: stamp(i + 1) }), 1),
    leads: numberedRecords("leads", sizes.leads, (i) => ({ stage_id: i % 3 === 0 ? "stage-won" : "stage-new", created_at: stamp(i), updated_at: stamp(i + 2) }), 1),
    tasks: numberedRecords("tasks", sizes.tasks, (i) => ({ updated_at: stamp(i + 3) }), 1),
    calls: numberedRecords("calls", sizes.calls, (i) => ({ created_at: stamp(i + 3), updated_at: stamp(i + 4) }), 1),
    events: numberedRecords("events", sizes.events, (i) => ({ created_at: stamp(i + 5), updated_at: stamp(i + 5) }), 1),
  };
  for (const { entity, index, overrides } of patches) data[entity][index] = patched(data[entity][index]!, overrides);
  return data;
}

function comparedMs(entity: SyncEntity, record: RawRecord): number {
  const at = entity === "events" ? (parseTimestamp(record["updated_at"]) ?? parseTimestamp(record["created_at"])) : parseTimestamp(record["updated_at"]);
  return at === null ? 0 : Date.parse(at);
}

export interface PreflightSource extends SourceServer {
  readonly token: string;
  readonly data: SourceData;
}

export async function startPreflightSource(knobs: SourceKnobs = {}): Promise<PreflightSource> {
  const token = PREFLIGHT_TOKEN;
  const data = buildSourceData({ ...DEFAULT_SOURCE_SIZES, ...knobs.sizes }, knobs.patches);
  const notImplemented = new Set(knobs.notImplemented ?? []);
  // The same query gives the same order every time; cached so a 5000-page crawl does not re-sort per page.
  const ordered = new Map<string, RawRecord[]>();
  let authenticated = 0;

  const fail = (status: number, message: string, headers: Record<string, string> = {}): SourceReply =>
    knobs.errorBodyText ? { status, headers: { ...headers, "content-type": "text/plain" }, body: message } : { status, headers, json: { error: message } };

  const authorized = (header: string | undefined, path: string): boolean => {
    const expected = `Bearer ${token}`;
    if (header === expected) return true;
    if (header === undefined) return knobs.acceptMissingToken === true || `/${knobs.acceptMissingToken}` === path;
    const n = knobs.tokenCompareChars;
    return n !== undefined && header.length === expected.length && header.slice(0, 7 + n) === expected.slice(0, 7 + n);
  };

  const sinceMs = (text: string): number => Date.parse(knobs.sinceOffsetIgnored ? `${text.slice(0, 19)}Z` : text);

  const server = await startSourceServer((request) => {
    if (!authorized(request.headers.authorization, request.path)) return fail(401, "invalid token");
    authenticated++;
    if (knobs.throttleEvery && authenticated % knobs.throttleEvery === 0) {
      const retryAfter = knobs.retryAfter === undefined ? "1" : knobs.retryAfter;
      return fail(429, "slow down", retryAfter === null ? {} : { "retry-after": retryAfter });
    }
    const entity = request.path.slice(1) as SyncEntity;
    if (!(entity in data) || notImplemented.has(entity)) return fail(404, `no endpoint ${request.path}`);
    const status = knobs.status?.[entity];
    if (status !== undefined) return fail(status, "refused on purpose", status === 429 ? { "retry-after": "1" } : {});

    const since = request.query.get("updated_since");
    const incremental = INCREMENTAL.includes(entity);
    if (incremental && since !== null && knobs.refuseSince !== undefined) {
      const refused =
        knobs.refuseSince === "zulu" ? /Z$/.test(since) : knobs.refuseSince === "zero-offset" ? /\+00:00$/.test(since) : /[+-](?!00:00)\d{2}:\d{2}$/.test(since);
      if (refused) return fail(400, "updated_since not understood");
    }
    const refusedParam = knobs.refuseQuery?.entity === entity ? knobs.refuseQuery.param : undefined;
    if (refusedParam === "limit" && request.query.has("limit")) return fail(400, "unknown parameter limit");
    if (refusedParam === "page" && Number(request.query.get("page") ?? 1) > 1) return fail(400, "page out of range");
    const key = `${entity} ${since}`;
    let records = ordered.get(key);
    if (records === undefined) {
      const all = data[entity];
      const threshold = incremental && since !== null && !knobs.sinceIgnored ? sinceMs(since) : null;
      records = all.filter((r) => threshold === null || (knobs.sinceExclusive ? comparedMs(entity, r) > threshold : comparedMs(entity, r) >= threshold));
      if (incremental) records.sort((a, b) => comparedMs(entity, a) - comparedMs(entity, b) || String(a["id"]).localeCompare(String(b["id"])));
      ordered.set(key, records);
    }
    if (records.length === 0 && knobs.emptyAs404) return fail(404, "nothing found");

    const size = knobs.pageSize?.[entity] ?? Number(request.query.get("limit") ?? 100);
    let list = records;
    if (knobs.duplicateRecord === entity && list.length > size) list = [...list.slice(0, size), list[size - 1]!, ...list.slice(size)];
    const pageCount = Math.ceil(list.length / size);
    let page = Number(request.query.get("page") ?? 1);
    if (knobs.repeatPage === entity && page === 2) page = 1;
    const served = incremental && knobs.order === "pages-reversed" && page <= pageCount ? pageCount - page + 1 : page;
    let pageData = list.slice((served - 1) * size, served * size);
    if (incremental && knobs.order === "descending-within-page") pageData = [...pageData].reverse();
    let hasMore = page * size < list.length;
    if (knobs.hasMoreOnLastPage === entity && page === pageCount) hasMore = true;

    if (knobs.nonJson === entity) return { body: "OK", headers: { "content-type": "text/plain" } };
    const body: Record<string, unknown> = { data: knobs.dataNotArray === entity ? { items: pageData } : pageData, has_more: hasMore };
    if (knobs.hasMoreAs?.entity === entity) {
      if (knobs.hasMoreAs.mode === "missing") delete body["has_more"];
      else body["has_more"] = String(hasMore);
    }
    if (knobs.latin1 === entity) {
      const text = Buffer.from(JSON.stringify(body));
      const at = text.indexOf('"name":"') + '"name":"'.length;
      return { body: Buffer.concat([text.subarray(0, at), Buffer.from([0xe9]), text.subarray(at)]), headers: { "content-type": "application/json" } };
    }
    return { json: body };
  });
  return { ...server, token, data, close: () => server.close() };
}

/**
 * Starts sources for one test file with these knobs as defaults, and closes every one it started after the
 * file's tests (the hook is registered by this call, so call it at the top level of a test file).
 */
export function preflightSourcesOfFile(defaults: SourceKnobs): (knobs: SourceKnobs) => Promise<PreflightSource> {
  const started: PreflightSource[] = [];
  afterAll(async () => {
    await Promise.all(started.splice(0).map((source) => source.close()));
  });
  return async (knobs) => {
    const source = await startPreflightSource({ ...defaults, ...knobs });
    started.push(source);
    return source;
  };
}
