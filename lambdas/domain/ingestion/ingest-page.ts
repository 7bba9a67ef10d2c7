import type { SyncEntity } from "../core/entities";
import { PaginationError } from "../core/errors";
import { MAX_PAGES_PER_ENTITY } from "../core/limits";
import type { Logger } from "../core/ports/logger";
import type { RecordStore, StageKinds } from "../core/ports/record-store";
import type { SourceClient, SourceConnection } from "../core/ports/source-client";
import { entityDefinition } from "../source-contract/entity-catalog";
import { preparePage, type PageFingerprint } from "./prepare-page";
import type { AuditStore } from "../core/ports/audit-store";
import type { HealedCounts } from "../core/audit-summary";
import { AUDIT_ENTITIES, runModeOf, type AuditEntity } from "../core/run-mode";
import { planAuditPage } from "../audits/heal-plan";
import { NAMES_USERS, pageFindings, type SampledSoFar } from "./record-findings";
import { latestTrusted } from "../core/present-bound";
import { pageCap } from "../source-contract/rules/paging-rules";

export interface IngestPageDeps {
  readonly source: SourceClient;
  readonly store: RecordStore;
  readonly logger: Logger;
  /** Where leads pages get the stage kinds (a per-run memo in the sync); the store's read when absent. */
  readonly stageKinds?: (connectionId: string) => Promise<StageKinds>;
  /** What an audit's page compares with (core/run-mode.ts: the run id says whether it is one); unused by a sync's page. */
  readonly audits?: AuditStore;
  /** Where pages of entities with a responsible_user_id get the user ids (a per-run memo in the sync); the store's read when absent. */
  readonly userIds?: (connectionId: string) => Promise<ReadonlySet<string>>;
}

export interface IngestPageInput {
  readonly connectionId: string;
  readonly entity: SyncEntity;
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
  /** When the page task runs: an audit's heal marks say when they were written. */
  readonly at?: string;
  /** Sample ids the run already holds per finding rule for this entity (none on its page 1). */
  readonly findingSamples?: SampledSoFar;
}

export interface IngestPageResult {
  readonly records: number;
  readonly stages: number;
  readonly unresolvedWonLost: number;
  readonly hasMore: boolean;
  /** The watermark after this page (unchanged when the page did not move it). */
  readonly watermark: string | null;
  readonly fingerprint: PageFingerprint;
  /** An audit's page: what it healed (absent for a sync's page). */
  readonly healed?: HealedCounts;
  /** Sample ids the run holds per finding rule after this page. */
  readonly findingSamples: SampledSoFar;
}

/**
 * One page of one entity: fetch, validate, normalise, and write it together
 * with its watermark. Every Step Functions page task, the local runtime and
 * the tests call this one function.
 */
export async function ingestPage(
  deps: IngestPageDeps,
  connection: SourceConnection,
  input: IngestPageInput,
): Promise<IngestPageResult> {
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
  const findings = pageFindings(prepared.findings, input.findingSamples ?? {});

  // An audit's page writes only what it heals, and never a listing hash: the sync's incremental listing is not its.
  const audit = runModeOf(input.run.runId) === "audit" ? await auditPlan(deps, input, prepared.writes) : undefined;
  // Nor does it move the watermark: what is past it is left to the next sync, which asks from it (docs/audits.md).
  const advances =
    audit === undefined &&
    definition.incremental &&
    prepared.maxCompared !== null &&
    (input.watermark === null || prepared.maxCompared > input.watermark);
  const watermark = advances ? prepared.maxCompared : input.watermark;
  // Always committed, even with nothing to write: the commit is also the run's fence, lease and progress.
  await deps.store.commitPage({
    connectionId: input.connectionId,
    records: audit?.writes ?? prepared.writes,
    ...(advances && watermark !== null ? { watermark: { entity: input.entity, value: watermark } } : {}),
    lastPage: !sourcePage.hasMore,
    ...(audit === undefined ? { listing: { hasMore: sourcePage.hasMore, updatedSince: definition.incremental ? input.updatedSince : null } } : {}),
    run: {
      runId: input.run.runId,
      entity: input.entity,
      page: input.page,
      records: prepared.records,
      stages: prepared.stages,
      unresolvedWonLost: prepared.unresolvedLeadIds.length,
      ...(audit === undefined ? {} : { audit: { healed: audit.healed, ahead: audit.ahead, sampleIds: audit.sampleIds } }),
      ...(findings.findings.length > 0 ? { findings: findings.findings } : {}),
      leaseUntil: input.run.leaseUntil,
      committedAt: input.run.committedAt,
    },
  });

  if (prepared.unresolvedLeadIds.length > 0) {
    deps.logger.warn("leads neither won nor lost: stage or pipeline not synced, or pipeline has no stages", {
      connection_id: input.connectionId,
      page: input.page,
      count: prepared.unresolvedLeadIds.length,
      lead_ids: prepared.unresolvedLeadIds.slice(0, 10),
    });
  }
  deps.logger.info("page committed", {
    connection_id: input.connectionId,
    entity: input.entity,
    page: input.page,
    records: prepared.records,
    has_more: sourcePage.hasMore,
    watermark,
    ...(audit === undefined ? {} : { healed: audit.healed, ahead_of_watermark: audit.ahead }),
  });

  return {
    records: prepared.records,
    stages: prepared.stages,
    unresolvedWonLost: prepared.unresolvedLeadIds.length,
    hasMore: sourcePage.hasMore,
    watermark,
    fingerprint: prepared.fingerprint,
    ...(audit === undefined ? {} : { healed: audit.healed }),
    findingSamples: findings.sampled,
  };
}

function auditPlan(deps: IngestPageDeps, input: IngestPageInput, writes: Parameters<typeof planAuditPage>[1]["writes"]) {
  const entity = AUDIT_ENTITY_OF[input.entity];
  if (deps.audits === undefined || entity === undefined) throw new TypeError(`an audit page of ${input.entity} needs an audit store and an incremental entity`);
  return planAuditPage(deps.audits, {
    connectionId: input.connectionId,
    auditId: input.run.runId,
    entity,
    page: input.page,
    watermark: input.watermark,
    writes,
    at: input.at ?? new Date(0).toISOString(),
  });
}

const AUDIT_ENTITY_OF: Partial<Record<SyncEntity, AuditEntity>> = Object.fromEntries(AUDIT_ENTITIES.map((entity) => [entity, entity]));
