import type { AuditStore } from "../core/ports/audit-store";
import type { HealedCounts } from "../core/audit-summary";
import type { SourceConnection } from "../core/ports/source-client";
import type { AuditEntity } from "../core/run-mode";
import { fetchAndPrepare, logCommitted, pageProgress, pageResult, type FetchPageDeps, type PageInput, type PageResult } from "../ingestion/fetch-and-prepare";
import { planAuditPage } from "./heal-plan";

export interface AuditPageDeps extends FetchPageDeps {
  /** What the page compares with, and where it remembers the ids the source returned. */
  readonly audits: AuditStore;
}

export interface AuditPageInput extends PageInput<AuditEntity> {
  /** When the page task runs: the heal marks say when they were written. */
  readonly at: string;
}

export interface AuditPageResult extends PageResult {
  readonly healed: HealedCounts;
}

/**
 * An audit's page: fetch and prepare it as a sync would (../ingestion/fetch-and-prepare.ts),
 * then write only what it heals (./heal-plan.ts). It never moves the watermark
 * (what is past it is left to the next sync, which asks from it) and never
 * keeps a listing hash (the sync's incremental listing is not its):
 * docs/audits.md.
 */
export async function auditPage(deps: AuditPageDeps, connection: SourceConnection, input: AuditPageInput): Promise<AuditPageResult> {
  const fetched = await fetchAndPrepare(deps, connection, input);
  const plan = await planAuditPage(deps.audits, {
    connectionId: input.connectionId,
    auditId: input.run.runId,
    entity: input.entity,
    page: input.page,
    watermark: input.watermark,
    writes: fetched.prepared.writes,
    at: input.at,
  });
  // Always committed, even with nothing to heal: the commit is also the run's fence, lease and progress.
  await deps.store.commitPage({
    connectionId: input.connectionId,
    records: plan.writes,
    lastPage: !fetched.hasMore,
    run: { ...pageProgress(input, fetched), audit: { healed: plan.healed, ahead: plan.ahead, sampleIds: plan.sampleIds } },
    stageEventType: input.stageEventType?.() ?? null,
  });
  logCommitted(deps.logger, input, fetched, input.watermark, { healed: plan.healed, ahead_of_watermark: plan.ahead });
  return { ...pageResult(fetched, input.watermark), healed: plan.healed };
}
