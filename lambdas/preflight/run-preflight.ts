/**
 * The conformance run: checks a live source API against every source-side
 * rule of the spec, GET only, within the declared rate, and returns the report.
 *
 *   auth -> each endpoint paged through (envelope, paging, records)
 *   -> updated_since probes per incremental endpoint -> references
 */
import { SYNC_ENTITIES, type SyncEntity } from "../core/entities";
import { PageValidationError } from "../core/errors";
import { DEFAULT_RATE_LIMIT, MAX_PAGES_PER_ENTITY, PAGE_SIZE } from "../core/limits";
import type { StageKind } from "../core/entities";
import { ENTITY_CATALOG, entityDefinition } from "../ingestion/entity-catalog";
import { isPlainObject } from "../records/fields/object";
import { parseRecord } from "../records/parse-record";
import type { PipelineOutput } from "../records/pipeline";
import { FindingCollector } from "./findings";
import { PreflightCannotRunError } from "./preflight-errors";
import type { PreflightResult } from "./report";
import { systemClock, type PreflightClock } from "./request-window";
import { missingToken401, wrongToken401 } from "./rules/auth-rules";
import { emptyIs200, optional200Or404, requiredPresent } from "./rules/endpoint-rules";
import { envelopeDataArray, envelopeHasMoreBoolean, envelopeJson } from "./rules/envelope-rules";
import { errorBody } from "./rules/error-rules";
import { ascending, filtered, inclusive, offsetHonoured, type TimedRecord } from "./rules/incremental-rules";
import { hasMoreSuccessor, limitHonoured, noDuplicateRecord, noRepeatPage, pageCap } from "./rules/paging-rules";
import { rateDeclared, rateRetriesExhausted, rateRetryAfter } from "./rules/rate-rules";
import { comparedRaw, RECORD_RULES, type RecordObservation } from "./rules/record-rules";
import { referenceStage, referenceUser } from "./rules/reference-rules";
import { SourceTransport, type PreflightFetch, type SourceResponse } from "./source-transport";

export interface PreflightOptions {
  /** Root of the source API; a trailing slash is stripped. */
  readonly baseUrl: string;
  readonly token: string;
  /** Request starts per second, at most; default the spec's 5. */
  readonly rate?: number;
  /** Pages per endpoint, at most; default (and at most) the spec's 5000. */
  readonly maxPages?: number;
  readonly fetch: PreflightFetch;
  readonly clock?: PreflightClock;
  /** Called after each page of the crawl. */
  readonly onProgress?: (progress: { readonly endpoint: string; readonly page: number }) => void;
}

/** Early enough to select every record on the crawl, in the form the service sends (its first run starts at sync_since). */
const FULL_CRAWL_SINCE = "1970-01-01T00:00:00+00:00";
/** Late enough to select nothing. */
const FUTURE_SINCE = "2999-01-01T00:00:00+00:00";
/** Offsets the same instant is also written with: one ahead of UTC, one behind, neither whole hours. */
const PROBE_OFFSETS_MINUTES = [5 * 60 + 30, -4 * 60];
/** The pivot is this many records from the end, so one page holds everything from it on. */
const PIVOT_FROM_END = 50;

/** The base URL as the service stores it, or a one-line refusal. */
export function normaliseBaseUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new PreflightCannotRunError(`${JSON.stringify(text)} is not a URL: pass the root of the source API, e.g. https://crm.example.com/api/v1`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new PreflightCannotRunError(`the base URL must start with http:// or https://, not ${url.protocol}`);
  }
  if (url.search !== "" || url.hash !== "") throw new PreflightCannotRunError("the base URL must not carry a query or a fragment: pass only the root of the source API");
  return url.href.replace(/\/+$/, "");
}

/** The token with one character changed at `position`. */
function alterToken(token: string, position: number): string {
  const original = token[position]!;
  const replacement = original === "x" ? "y" : "x";
  return token.slice(0, position) + replacement + token.slice(position + 1);
}

/** Positions to alter: first, middle and last (distinct). */
function alterPositions(token: string): number[] {
  return [...new Set([0, Math.floor(token.length / 2), token.length - 1])];
}

/** `instant` written with a given offset from UTC, e.g. 2026-02-03T13:30:00+05:30. */
function withOffset(instant: number, offsetMinutes: number): string {
  const local = new Date(instant + offsetMinutes * 60_000).toISOString().slice(0, 19);
  const sign = offsetMinutes < 0 ? "-" : "+";
  const abs = Math.abs(offsetMinutes);
  return `${local}${sign}${String(Math.floor(abs / 60)).padStart(2, "0")}:${String(abs % 60).padStart(2, "0")}`;
}

function idOf(raw: unknown, index: number): string {
  const id = isPlainObject(raw) ? raw["id"] : undefined;
  return typeof id === "string" && id.length > 0 ? id : `#${index}`;
}

/** The page's records when the body is an envelope with a data array, else null. */
function pageOf(response: SourceResponse): { data: unknown[]; hasMore: boolean } | null {
  if (response.status !== 200 || !isPlainObject(response.json)) return null;
  const { data, has_more: hasMore } = response.json;
  return Array.isArray(data) ? { data, hasMore: hasMore === true } : null;
}

interface Crawl {
  /** The whole entity was read (not cut by --max-pages or a broken page). */
  readonly complete: boolean;
  readonly records: readonly Record<string, unknown>[];
  readonly timed: readonly TimedRecord[];
  readonly pipelines: readonly PipelineOutput[];
}

export async function runPreflight(options: PreflightOptions): Promise<PreflightResult> {
  const base = normaliseBaseUrl(options.baseUrl);
  const rate = options.rate ?? DEFAULT_RATE_LIMIT;
  const maxPages = Math.min(options.maxPages ?? MAX_PAGES_PER_ENTITY, MAX_PAGES_PER_ENTITY);
  const secrets = [options.token, ...alterPositions(options.token).map((p) => alterToken(options.token, p))];
  const findings = new FindingCollector(() => secrets);
  let currentEndpoint = "/pipelines";
  const transport = new SourceTransport({
    fetch: options.fetch,
    clock: options.clock ?? systemClock,
    rate,
    onThrottled: (response) => {
      findings.apply(rateDeclared, currentEndpoint, { response, rate }, response.request);
      findings.apply(rateRetryAfter, currentEndpoint, { response }, response.request);
    },
  });
  const bearer = `Bearer ${options.token}`;

  const urlOf = (path: string, params: Record<string, string | number>): URL =>
    new URL(`${base}${path}?${new URLSearchParams(Object.entries(params).map(([k, value]): [string, string] => [k, String(value)]))}`);

  /** Every GET of the run: the answer is also checked for the rules any answer must keep. */
  const get = async (endpoint: string, url: URL, authorization: string | null = bearer): Promise<SourceResponse> => {
    currentEndpoint = endpoint;
    const response = await transport.get(url, authorization);
    findings.ran(rateDeclared, endpoint);
    findings.ran(rateRetryAfter, endpoint);
    findings.apply(rateRetriesExhausted, endpoint, { response }, response.request);
    findings.apply(errorBody, endpoint, { response }, response.request);
    return response;
  };

  const crawlParams = (entity: SyncEntity, page: number): Record<string, string | number> => ({
    limit: PAGE_SIZE,
    page,
    ...(ENTITY_CATALOG[entity].incremental ? { updated_since: FULL_CRAWL_SINCE } : {}),
  });

  // 1. Authentication, on page 1 of /pipelines.
  const firstPipelines = await get("/pipelines", urlOf("/pipelines", crawlParams("pipelines", 1)));
  if (firstPipelines.status === 401) {
    throw new PreflightCannotRunError("the source answered 401 to the token given: pass the token it accepts with --token or SOURCE_TOKEN");
  }
  const authUrl = urlOf("/pipelines", crawlParams("pipelines", 1));
  const noToken = await get("/pipelines", authUrl, null);
  findings.apply(missingToken401, "/pipelines", { response: noToken }, noToken.request);
  const altered = [];
  for (const position of alterPositions(options.token)) {
    altered.push({ position, response: await get("/pipelines", authUrl, `Bearer ${alterToken(options.token, position)}`) });
  }
  findings.apply(wrongToken401, "/pipelines", { responses: altered }, altered[0]!.response.request);

  // 2. Every endpoint, paged through as the service does.
  const crawls = new Map<SyncEntity, Crawl>();
  for (const entity of SYNC_ENTITIES) {
    const definition = entityDefinition(entity);
    const path = definition.path;
    let response = entity === "pipelines" ? firstPipelines : await get(path, urlOf(path, crawlParams(entity, 1)));
    findings.apply(requiredPresent, path, { required: definition.required, response }, response.request);
    findings.apply(optional200Or404, path, { required: definition.required, response }, response.request);
    if (response.status !== 200) continue;

    const records: Record<string, unknown>[] = [];
    const timed: TimedRecord[] = [];
    const pipelines: PipelineOutput[] = [];
    const seen = new Map<string, number>();
    let previousIds: string[] | null = null;
    let complete = false;
    for (let page = 1; ; page++) {
      options.onProgress?.({ endpoint: path, page });
      if (findings.apply(envelopeJson, path, { response }, response.request) || !isPlainObject(response.json)) break;
      const body = response.json;
      const brokenData = findings.apply(envelopeDataArray, path, { body }, response.request);
      findings.apply(envelopeHasMoreBoolean, path, { body }, response.request);
      if (brokenData) break;
      const { data, hasMore } = pageOf(response) ?? { data: [], hasMore: false };

      const ids = data.map(idOf);
      const observed = { page, ids, previousIds, seen };
      findings.apply(limitHonoured, path, observed, response.request);
      const repeated = findings.apply(noRepeatPage, path, observed, response.request);
      if (repeated) break; // the service fails the entity here; its records were seen already
      findings.apply(noDuplicateRecord, path, observed, response.request);
      data.forEach((raw, index) => {
        let invalid: PageValidationError | null = null;
        let output: unknown;
        try {
          output = parseRecord(definition.schema, raw, index);
        } catch (error) {
          if (!(error instanceof PageValidationError)) throw error;
          invalid = error;
        }
        const record = isPlainObject(raw) ? raw : {};
        const observation: RecordObservation = { entity, raw: record, recordId: ids[index]!, invalid };
        for (const recordRule of RECORD_RULES) findings.apply(recordRule, path, observation, response.request);
        records.push(record);
        if (definition.incremental) {
          const at = comparedRaw(entity, record);
          timed.push({ id: ids[index]!, at: at === null ? null : Date.parse(at), page });
        }
        if (entity === "pipelines" && invalid === null) pipelines.push(output as PipelineOutput);
      });
      for (const id of ids) if (!seen.has(id)) seen.set(id, page);

      if (!hasMore) {
        complete = true;
        findings.apply(pageCap, path, { pages: page, hasMore }, response.request);
        break;
      }
      if (page >= MAX_PAGES_PER_ENTITY) {
        findings.apply(pageCap, path, { pages: page, hasMore }, response.request);
        break;
      }
      if (page >= maxPages) break; // cut short on request: nothing is known about the rest
      const next = await get(path, urlOf(path, crawlParams(entity, page + 1)));
      const nextPage = pageOf(next);
      findings.apply(
        hasMoreSuccessor,
        path,
        { page, nextStatus: next.status, nextCount: nextPage?.data.length ?? 0, nextHasMore: nextPage?.hasMore ?? false },
        next.request,
      );
      if (next.status !== 200) break;
      previousIds = ids;
      response = next;
    }
    if (definition.incremental) findings.apply(ascending, path, { records: timed }, `GET ${urlOf(path, crawlParams(entity, 1)).href}`);
    crawls.set(entity, { complete, records, timed, pipelines });
  }

  // 3. updated_since, per incremental endpoint that answered.
  for (const entity of SYNC_ENTITIES) {
    const definition = entityDefinition(entity);
    const crawl = crawls.get(entity);
    if (!definition.incremental || crawl === undefined) continue;
    const path = definition.path;
    const timedRecords = (response: SourceResponse): TimedRecord[] =>
      (pageOf(response)?.data ?? []).map((raw, index) => {
        const at = comparedRaw(entity, isPlainObject(raw) ? raw : {});
        return { id: idOf(raw, index), at: at === null ? null : Date.parse(at), page: 1 };
      });

    const empty = await get(path, urlOf(path, { limit: PAGE_SIZE, page: 1, updated_since: FUTURE_SINCE }));
    findings.apply(emptyIs200, path, { response: empty }, empty.request);

    const stamped = crawl.timed.filter((r): r is TimedRecord & { at: number } => r.at !== null).sort((a, b) => a.at - b.at);
    const oldest = stamped[0]?.at;
    // Whole seconds: a source may not read fractions; an older record must exist for `filtered` to mean anything.
    const pivot = stamped.slice(Math.max(1, stamped.length - PIVOT_FROM_END)).find((r) => r.at > oldest! && r.at % 1000 === 0);
    if (pivot === undefined) continue;
    const zForm = new Date(pivot.at).toISOString().replace(".000Z", "Z");
    const zResponse = await get(path, urlOf(path, { limit: PAGE_SIZE, page: 1, updated_since: zForm }));
    const returned = timedRecords(zResponse);
    const since = { status: zResponse.status, since: pivot.at, pivotId: pivot.id, returned };
    findings.apply(inclusive, path, since, zResponse.request);
    findings.apply(filtered, path, since, zResponse.request);
    const others = [];
    let offsetRequest = zResponse.request;
    for (const minutes of PROBE_OFFSETS_MINUTES) {
      const form = withOffset(pivot.at, minutes);
      const response = await get(path, urlOf(path, { limit: PAGE_SIZE, page: 1, updated_since: form }));
      others.push({ form, status: response.status, ids: timedRecords(response).map((r) => r.id).sort() });
      offsetRequest = response.request;
    }
    const zIds = returned.map((r) => r.id).sort();
    findings.apply(offsetHonoured, path, { zStatus: zResponse.status, zForm, zIds, others }, offsetRequest);
  }

  // 4. References, when /pipelines and /users were read whole.
  const pipelinesCrawl = crawls.get("pipelines");
  const usersCrawl = crawls.get("users");
  if (pipelinesCrawl?.complete && usersCrawl?.complete) {
    const stageKinds = new Map<string, Map<string, StageKind>>(
      pipelinesCrawl.pipelines.map((p) => [p.id, new Map(p.stages.map((s) => [s.id, s.kind]))]),
    );
    const userIds = new Set(usersCrawl.records.map((u) => u["id"]).filter((id): id is string => typeof id === "string"));
    const text = (value: unknown): string | null => (typeof value === "string" && value !== "" ? value : null);
    for (const entity of ["contacts", "leads", "tasks", "calls"] as const) {
      const crawl = crawls.get(entity);
      if (crawl === undefined) continue;
      const path = ENTITY_CATALOG[entity].path;
      const request = `GET ${urlOf(path, crawlParams(entity, 1)).href}`;
      findings.ran(referenceUser, path);
      if (entity === "leads") findings.ran(referenceStage, path);
      for (const record of crawl.records) {
        const recordId = String(record["id"]);
        findings.apply(referenceUser, path, { recordId, userId: record["responsible_user_id"], userIds }, request);
        if (entity === "leads") {
          const observation = { leadId: recordId, pipelineId: text(record["pipeline_id"]), stageId: text(record["stage_id"]), stageKinds };
          findings.apply(referenceStage, path, observation, request);
        }
      }
    }
  }

  return findings.result(base);
}
