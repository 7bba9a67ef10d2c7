import type { SyncEntity } from "../core/entities";
import { PaginationError } from "../core/errors";
import { MAX_PAGES_PER_ENTITY, TEXT_LIMITS } from "../core/limits";
import { codePointLength, isWellFormedText } from "../core/characters";
import type { LeadStages } from "../core/lead-history";
import type { Logger } from "../core/ports/logger";
import type { PageFinding, PageRun, RecordStore, StageKinds } from "../core/ports/record-store";
import type { SourceClient, SourceConnection } from "../core/ports/source-client";
import { latestTrusted } from "../core/present-bound";
import { entityDefinition, type EntityDefinition } from "../source-contract/entity-catalog";
import { pageCap } from "../source-contract/rules/paging-rules";
import { preparePage, type PageFingerprint, type PreparedPage } from "./prepare-page";
import { NAMES_USERS, pageFindings, type SampledSoFar } from "./record-findings";

/*
 * The steps every page shares, whatever its run: fetch it, validate and
 * prepare it (fetchAndPrepare), and what its commit says of the run
 * (pageProgress) and logs (logCommitted). A sync's page (./ingest-page.ts)
 * and an audit's page (../audits/audit-page.ts) each compose these with a
 * commit of their own.
 */

export interface FetchPageDeps {
  readonly source: SourceClient;
  readonly store: RecordStore;
  readonly logger: Logger;
  /** Where leads pages get the stage kinds (a per-run memo in the sync); the store's read when absent. */
  readonly stageKinds?: (connectionId: string) => Promise<StageKinds>;
  /** Where pages of entities with a responsible_user_id get the user ids (a per-run memo in the sync); the store's read when absent. */
  readonly userIds?: (connectionId: string) => Promise<ReadonlySet<string>>;
}

/** What every page of a run is given, a sync's or an audit's. */
export interface PageInput<E extends SyncEntity = SyncEntity> {
  readonly connectionId: string;
  readonly entity: E;
  /** 1-based. */
  readonly page: number;
  /** Sent to incremental endpoints; ignored for /pipelines and /users. */
  readonly updatedSince: string | null;
  /** The entity's committed watermark when this page was fetched. */
  readonly watermark: string | null;
  /** The previous page of this entity in this run; null for page 1. */
  readonly previous: PageFingerprint | null;
  /** The run the page belongs to: its fence on the connection's lock, and the lease the commit extends. */
  readonly run: { readonly runId: string; readonly leaseUntil: string; /** Now, as the page task's clock reads it: the commit's time. */ readonly committedAt: string };
  /** Sample ids the run already holds per finding rule for this entity (none on its page 1). */
  readonly findingSamples?: SampledSoFar;
  /** The connection's setting naming the /events type that records stage moves, as the page's request read the connection (asked at the commit); absent or null: the default detection. */
  readonly stageEventType?: () => string | null;
}

/** What the page task needs back from a page, a sync's or an audit's. */
export interface PageResult {
  readonly records: number;
  readonly stages: number;
  readonly unresolvedWonLost: number;
  readonly hasMore: boolean;
  /** The watermark after this page (unchanged when the page did not move it). */
  readonly watermark: string | null;
  readonly fingerprint: PageFingerprint;
  /** Sample ids the run holds per finding rule after this page. */
  readonly findingSamples: SampledSoFar;
}

/** A page fetched and prepared, not yet committed. */
export interface FetchedPage {
  readonly definition: EntityDefinition<{ readonly id: string }>;
  readonly hasMore: boolean;
  readonly prepared: PreparedPage;
  /** The page's findings to count, with the samples the run holds after it. */
  readonly findings: { readonly findings: readonly PageFinding[]; readonly sampled: SampledSoFar };
  /** The stored stage of the page's leads, read while it was validated (leadStagesAhead); absent: the commit reads them. */
  readonly leadStages?: Promise<LeadStages | undefined>;
}

/** Fetches one page and prepares it, all or nothing: the page cap, the request, validation, paging rules, won/lost, findings. */
export async function fetchAndPrepare(deps: FetchPageDeps, connection: SourceConnection, input: PageInput, options: { readonly readLeadStages?: boolean } = {}): Promise<FetchedPage> {
  if (input.page > MAX_PAGES_PER_ENTITY) {
    throw new PaginationError(`more than ${MAX_PAGES_PER_ENTITY} pages of ${input.entity}; the source's has_more never ended`, { rule: pageCap.id });
  }
  const definition = entityDefinition(input.entity);
  // Read while the page is fetched, off the page's critical path; awaited only if the fetch succeeds.
  const kindsRead = input.entity === "leads" ? (deps.stageKinds ?? ((id) => deps.store.getStageKinds(id)))(input.connectionId) : null;
  kindsRead?.catch(() => undefined);
  const usersRead = NAMES_USERS.includes(input.entity) ? (deps.userIds ?? ((id) => deps.store.getUserIds(id)))(input.connectionId) : null;
  usersRead?.catch(() => undefined);
  const sourcePage = await deps.source.fetchPage(connection, {
    path: definition.path,
    page: input.page,
    ...(definition.incremental && input.updatedSince !== null ? { updatedSince: input.updatedSince } : {}),
  });

  const leadStages = options.readLeadStages === true ? leadStagesAhead(deps.store, input, sourcePage) : undefined;
  const stageKinds: StageKinds = kindsRead !== null && sourcePage.data.length > 0 ? await kindsRead : new Map();
  const userIds = usersRead !== null && sourcePage.data.length > 0 ? await usersRead : null;
  const prepared = preparePage({
    entity: input.entity,
    page: input.page,
    data: sourcePage.data,
    previous: input.previous,
    stageKinds,
    userIds,
    // A compared timestamp past the page's clock plus the allowance is stored, but never moves the watermark.
    latestTrusted: latestTrusted(new Date(input.run.committedAt)),
  });
  return { definition, hasMore: sourcePage.hasMore, prepared, findings: pageFindings(prepared.findings, input.findingSamples ?? {}), ...(leadStages === undefined ? {} : { leadStages }) };
}

/**
 * The read of the page's leads' stored stages (their stage transitions), started as soon as the page's ids are known
 * so that it runs while the page is validated and planned, not before its commit. Only for a leads page that will
 * write records: one that is not a whole listing (page 1 without a next page may be the listing already stored,
 * which writes nothing, so an idle run reads nothing more). Raw ids that could not be keys leave it to the commit;
 * a failed read resolves undefined, and the commit reads again.
 */
function leadStagesAhead(store: RecordStore, input: PageInput, page: { readonly data: readonly unknown[]; readonly hasMore: boolean }): Promise<LeadStages | undefined> | undefined {
  if (input.entity !== "leads" || (input.page === 1 && !page.hasMore)) return undefined;
  const ids = page.data.map((record) => (typeof record === "object" && record !== null ? (record as Record<string, unknown>)["id"] : undefined));
  if (ids.length === 0 || !ids.every((id): id is string => typeof id === "string" && id !== "" && codePointLength(id) <= TEXT_LIMITS.id && isWellFormedText(id))) return undefined;
  try {
    return store.readLeadStages(input.connectionId, ids).catch(() => undefined);
  } catch {
    return undefined;
  }
}

/** The run's part of a page's commit, a sync's or an audit's: its fence, lease and progress. */
export function pageProgress(input: PageInput, fetched: FetchedPage): PageRun {
  const { prepared, findings } = fetched;
  return {
    runId: input.run.runId,
    entity: input.entity,
    page: input.page,
    records: prepared.records,
    stages: prepared.stages,
    unresolvedWonLost: prepared.unresolvedLeadIds.length,
    ...(findings.findings.length > 0 ? { findings: findings.findings } : {}),
    leaseUntil: input.run.leaseUntil,
    committedAt: input.run.committedAt,
  };
}

/** The log lines of a committed page; `extra` is what its kind adds to the last one. */
export function logCommitted(logger: Logger, input: PageInput, fetched: FetchedPage, watermark: string | null, extra: Record<string, unknown> = {}): void {
  const { prepared } = fetched;
  if (prepared.unresolvedLeadIds.length > 0) {
    logger.warn("leads neither won nor lost: stage or pipeline not synced, or pipeline has no stages", {
      connection_id: input.connectionId,
      page: input.page,
      count: prepared.unresolvedLeadIds.length,
      lead_ids: prepared.unresolvedLeadIds.slice(0, 10),
    });
  }
  logger.info("page committed", {
    connection_id: input.connectionId,
    entity: input.entity,
    page: input.page,
    records: prepared.records,
    has_more: fetched.hasMore,
    watermark,
    ...extra,
  });
}

/** What the page task needs back, once the page committed with `watermark`. */
export function pageResult(fetched: FetchedPage, watermark: string | null): PageResult {
  const { prepared } = fetched;
  return {
    records: prepared.records,
    stages: prepared.stages,
    unresolvedWonLost: prepared.unresolvedLeadIds.length,
    hasMore: fetched.hasMore,
    watermark,
    fingerprint: prepared.fingerprint,
    findingSamples: fetched.findings.sampled,
  };
}
