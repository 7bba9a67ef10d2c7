import type { StageKind, SyncEntity } from "../core/entities";
import { PageValidationError } from "../core/errors";
import { MAX_PAGES_PER_ENTITY } from "../core/limits";
import { entityDefinition } from "../source-contract/entity-catalog";
import { isPlainObject } from "../records/fields/object";
import { parseRecord } from "../records/parse-record";
import type { PipelineOutput } from "../records/pipeline";
import { crawlParams, idOf, instantOf, pageOf, type PreflightContext } from "./preflight-context";
import { envelopeDataArray, envelopeHasMoreBoolean, envelopeJson, envelopeUtf8 } from "../source-contract/rules/envelope-rules";
import { ascending, type TimedRecord } from "../source-contract/rules/incremental-rules";
import { hasMoreSuccessor, limitHonoured, noDuplicateRecord, noRepeatPage, pageCap } from "../source-contract/rules/paging-rules";
import { queryPage } from "../source-contract/rules/query-rules";
import { RECORD_RULES } from "../source-contract/rules/record-rules";
import { isRefusal } from "./diagnose-query";
import type { SourceResponse } from "../source-contract/source-response";

/** What a record's references need, kept instead of the record so a 500,000-record crawl stays small. */
export interface RecordRefs {
  readonly id: string;
  readonly userId: unknown;
  readonly pipelineId: unknown;
  readonly stageId: unknown;
}

/** What one endpoint's crawl leaves for the later checks. */
export interface Crawl {
  /** Every page was read: not cut by --max-pages, a broken page or the page cap. */
  readonly complete: boolean;
  readonly refs: readonly RecordRefs[];
  /** Incremental endpoints: each record's compared instant, in the order served. */
  readonly timed: readonly TimedRecord[];
  /** /pipelines: the stage kinds of the pipelines the sync accepts. */
  readonly stageKinds: ReadonlyMap<string, ReadonlyMap<string, StageKind>>;
}

/** Runs every record rule on one record, through the sync's own parseRecord and schema. */
function checkRecord(context: PreflightContext, entity: SyncEntity, raw: unknown, index: number, request: string): unknown {
  const definition = entityDefinition(entity);
  let invalid: PageValidationError | null = null;
  let output: unknown = null;
  try {
    output = parseRecord(definition.schema, raw, index);
  } catch (error) {
    if (!(error instanceof PageValidationError)) throw error;
    invalid = error;
  }
  const observation = { entity, raw: isPlainObject(raw) ? raw : {}, recordId: idOf(raw, index), invalid, output };
  for (const recordRule of RECORD_RULES) context.findings.apply(recordRule, definition.path, observation, request);
  return output;
}

/**
 * Pages through one endpoint as the service does, from the page-1 answer
 * already in hand, checking the envelope, the paging rules and every record.
 */
export async function crawlEndpoint(context: PreflightContext, entity: SyncEntity, first: SourceResponse): Promise<Crawl> {
  const { findings } = context;
  const definition = entityDefinition(entity);
  const path = definition.path;
  const refs: RecordRefs[] = [];
  const timed: TimedRecord[] = [];
  const stageKinds = new Map<string, ReadonlyMap<string, StageKind>>();
  const seen = new Map<string, number>();
  let previousIds: string[] | null = null;
  let complete = false;
  let response = first;

  for (let page = 1; ; page++) {
    context.onProgress?.({ endpoint: path, page });
    if (findings.apply(envelopeJson, path, { response }, response.request) || !isPlainObject(response.json)) break;
    // The sync fails such a page; the kit still reads it (with U+FFFD) to check the rest.
    findings.apply(envelopeUtf8, path, { response }, response.request);
    const body = response.json;
    const brokenData = findings.apply(envelopeDataArray, path, { body }, response.request);
    findings.apply(envelopeHasMoreBoolean, path, { body }, response.request);
    if (brokenData) break;
    const { data, hasMore } = pageOf(response) ?? { data: [], hasMore: false };

    const ids = data.map(idOf);
    const observed = { page, ids, previousIds, seen };
    findings.apply(limitHonoured, path, observed, response.request);
    if (findings.apply(noRepeatPage, path, observed, response.request)) break; // the service fails the entity here
    findings.apply(noDuplicateRecord, path, observed, response.request);
    data.forEach((raw, index) => {
      const output = checkRecord(context, entity, raw, index, response.request);
      const record = isPlainObject(raw) ? raw : {};
      refs.push({ id: ids[index]!, userId: record["responsible_user_id"], pipelineId: record["pipeline_id"], stageId: record["stage_id"] });
      if (definition.incremental) timed.push({ id: ids[index]!, at: instantOf(entity, raw), page });
      const pipeline = entity === "pipelines" ? (output as PipelineOutput | null) : null;
      if (pipeline) stageKinds.set(pipeline.id, new Map(pipeline.stages.map((stage) => [stage.id, stage.kind])));
    });
    for (const id of ids) if (!seen.has(id)) seen.set(id, page);

    if (!hasMore || page >= MAX_PAGES_PER_ENTITY) {
      findings.apply(pageCap, path, { pages: page, hasMore }, response.request);
      complete = !hasMore;
      break;
    }
    if (page >= context.maxPages) break; // cut short on request: nothing is known about the rest
    const next = await context.get(path, context.urlOf(path, crawlParams(entity, page + 1)));
    const nextPage = pageOf(next);
    const successor = { page, nextStatus: next.status, nextCount: nextPage?.data.length ?? 0, nextHasMore: nextPage?.hasMore ?? false };
    findings.apply(hasMoreSuccessor, path, successor, next.request);
    // Page 1 to N were answered with the same limit and updated_since: a refused page N+1 is its page number.
    if (isRefusal(next.status)) {
      findings.apply(queryPage, path, { refusedStatus: next.status, withoutStatus: 200, sent: `page=${page + 1}`, tried: `page=${page}` }, next.request);
    }
    if (next.status !== 200) break;
    previousIds = ids;
    response = next;
  }
  if (definition.incremental) findings.apply(ascending, path, { records: timed }, `GET ${context.urlOf(path, crawlParams(entity, 1)).href}`);
  return { complete, refs, timed, stageKinds };
}
