/**
 * The conformance run: checks a live source API against every source-side
 * rule of the spec, GET only, within the declared rate, and returns the report.
 *
 *   auth (page 1 of /pipelines) -> each endpoint paged through as the service
 *   does (envelope, paging, records) -> updated_since probes per incremental
 *   endpoint -> references
 */
import { SYNC_ENTITIES, type SyncEntity } from "../core/entities";
import { DEFAULT_RATE_LIMIT, MAX_PAGES_PER_ENTITY } from "../core/limits";
import type { Clock, Sleep } from "../core/ports/clock";
import { realSleep, systemClock } from "../core/ports/clock";
import { entityDefinition } from "../source-contract/entity-catalog";
import { checkReferences } from "./check-references";
import { crawlEndpoint, type Crawl } from "./crawl-endpoint";
import { diagnoseQuery } from "./diagnose-query";
import { FindingCollector } from "./findings";
import { crawlParams, type PreflightContext } from "./preflight-context";
import { PreflightCannotRunError } from "./preflight-errors";
import { probeUpdatedSince } from "./probe-updated-since";
import type { PreflightResult, Report } from "./report";
import { missingToken401, wrongToken401 } from "../source-contract/rules/auth-rules";
import { KIT_RULES } from "../source-contract/rules/catalog";
import { optional200Or404, requiredPresent } from "../source-contract/rules/endpoint-rules";
import { errorBody } from "../source-contract/rules/error-rules";
import { rateDeclared, rateRetriesExhausted, rateRetryAfter } from "../source-contract/rules/rate-rules";
import { SourceTransport, type PreflightFetch } from "./source-transport";
import type { SourceResponse } from "../source-contract/source-response";

const RULE_ORDER = KIT_RULES.map((r) => r.id);

export interface PreflightOptions {
  /** Root of the source API; a trailing slash is stripped. */
  readonly baseUrl: string;
  readonly token: string;
  /** Request starts per second, at most; default the spec's 5. */
  readonly rate?: number;
  /** Pages per endpoint, at most; default (and at most) the spec's 5000. */
  readonly maxPages?: number;
  /** Plain fetch in the CLI; the service will pass its SSRF-guarded one. */
  readonly fetch: PreflightFetch;
  readonly clock?: Clock;
  /** How the retries and the rate window wait; real time by default. */
  readonly sleep?: Sleep;
  /** Called before each page of a crawl is checked; `report()` is the report as far as the run has got. */
  readonly onProgress?: (progress: { readonly endpoint: string; readonly page: number; readonly report: () => Report }) => void;
}

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
  const replacement = token[position] === "x" ? "y" : "x";
  return token.slice(0, position) + replacement + token.slice(position + 1);
}

/** Positions a wrong token differs at: first, middle and last character. */
function alterPositions(token: string): number[] {
  return [...new Set([0, Math.floor(token.length / 2), token.length - 1])];
}

/** A missing token and the token changed in one character, at several positions: each must be a 401. */
async function checkAuth(context: PreflightContext, token: string): Promise<void> {
  const url = context.urlOf("/pipelines", crawlParams("pipelines", 1));
  const noToken = await context.get("/pipelines", url, null);
  context.findings.apply(missingToken401, "/pipelines", { response: noToken }, noToken.request);
  const altered = [];
  for (const position of alterPositions(token)) {
    altered.push({ position, response: await context.get("/pipelines", url, `Bearer ${alterToken(token, position)}`) });
  }
  context.findings.apply(wrongToken401, "/pipelines", { responses: altered }, altered[0]!.response.request);
}

export async function runPreflight(options: PreflightOptions): Promise<PreflightResult> {
  const base = normaliseBaseUrl(options.baseUrl);
  const { token } = options;
  const rate = options.rate ?? DEFAULT_RATE_LIMIT;
  // The wrong tokens sent are as secret as the token itself.
  const secrets = [token, ...alterPositions(token).map((position) => alterToken(token, position))];
  const findings = new FindingCollector(() => secrets);
  let currentEndpoint = "/pipelines";
  const transport = new SourceTransport({
    fetch: options.fetch,
    clock: options.clock ?? systemClock,
    sleep: options.sleep ?? realSleep,
    rate,
    onThrottled: (response) => {
      findings.apply(rateDeclared, currentEndpoint, { response, rate }, response.request);
      findings.apply(rateRetryAfter, currentEndpoint, { response }, response.request);
    },
  });

  const context: PreflightContext = {
    findings,
    maxPages: Math.min(options.maxPages ?? MAX_PAGES_PER_ENTITY, MAX_PAGES_PER_ENTITY),
    ...(options.onProgress
      ? { onProgress: (at) => options.onProgress?.({ ...at, report: () => findings.result(base, RULE_ORDER).report }) }
      : {}),
    urlOf: (path, params) =>
      new URL(`${base}${path}?${new URLSearchParams(Object.entries(params).map(([key, value]): [string, string] => [key, String(value)]))}`),
    // Every answer is also checked for what any answer must keep.
    get: async (endpoint, url, authorization = `Bearer ${token}`): Promise<SourceResponse> => {
      currentEndpoint = endpoint;
      const response = await transport.get(url, authorization);
      findings.ran(rateDeclared, endpoint);
      findings.ran(rateRetryAfter, endpoint);
      findings.apply(rateRetriesExhausted, endpoint, { response }, response.request);
      findings.apply(errorBody, endpoint, { response }, response.request);
      return response;
    },
  };

  const firstPipelines = await context.get("/pipelines", context.urlOf("/pipelines", crawlParams("pipelines", 1)));
  if (firstPipelines.status === 401) {
    throw new PreflightCannotRunError("the source answered 401 to the token given: pass the token it accepts with --token or SOURCE_TOKEN");
  }
  await checkAuth(context, token);

  const crawls = new Map<SyncEntity, Crawl>();
  for (const entity of SYNC_ENTITIES) {
    const { path, required } = entityDefinition(entity);
    const first = entity === "pipelines" ? firstPipelines : await context.get(path, context.urlOf(path, crawlParams(entity, 1)));
    findings.apply(requiredPresent, path, { required, response: first }, first.request);
    findings.apply(optional200Or404, path, { required, response: first }, first.request);
    await diagnoseQuery(context, entity, first);
    if (first.status !== 200) continue;
    // Every endpoint, not only /pipelines: a route that forgot its auth middleware is a common slip.
    if (entity !== "pipelines") {
      const noToken = await context.get(path, context.urlOf(path, crawlParams(entity, 1)), null);
      findings.apply(missingToken401, path, { response: noToken }, noToken.request);
    }
    crawls.set(entity, await crawlEndpoint(context, entity, first));
  }
  for (const [entity, crawl] of crawls) {
    if (entityDefinition(entity).incremental) await probeUpdatedSince(context, entity, crawl);
  }
  checkReferences(context, crawls);
  return findings.result(base, RULE_ORDER);
}
