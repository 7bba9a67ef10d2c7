import type { SummaryEntity } from "../core/entities";
import { METRIC } from "../core/metric-names";
import { ENTITY_CATALOG } from "../source-contract/entity-catalog";
import type { SyncDeps } from "./sync-deps";
import { summaryRowsOf } from "./entity-steps";
import { endUnfinishedEntities } from "./fail-unfinished-entities";
import { serviceFailure } from "./entity-failure";
import type { SyncState } from "./sync-state";
import { runEndNotices } from "./run-end-notices";
import { requestManagerRefresh } from "./manager-refresh-request";
import { runModeOf } from "../core/run-mode";
import type { AuditSummary } from "../core/audit-summary";
import type { RunSummary } from "../core/run-summary";
import { changedBy, refreshFigures } from "../figures/refresh-figures";

/** Summary rows whose failure fails the run: the required entities, and stages with their pipelines. */
export const REQUIRED_SUMMARY_ENTITIES: ReadonlySet<SummaryEntity> = new Set(
  Object.values(ENTITY_CATALOG)
    .filter((definition) => definition.required)
    .flatMap((definition) => summaryRowsOf(definition.entity)),
);

export interface FinishRunResult {
  readonly run_id: string;
  readonly status: "succeeded" | "failed" | "cancelled";
}

/** The run fails exactly when a required entity failed. Releases the connection's run lock. */
export async function finishRun(deps: SyncDeps, state: SyncState): Promise<FinishRunResult> {
  const { run } = state;
  const summary = await deps.runs.get(run.connection_id, run.run_id);
  if (summary?.status === "cancelled") {
    // The owner cancelled it while this segment went on (Express cannot be stopped): no outcome, notice or count of ours.
    deps.logger.info("run finished after its cancel; it stays cancelled", { connection_id: run.connection_id, run_id: run.run_id });
    await keepFigures(deps, run.connection_id, run.run_id, summary);
    return { run_id: run.run_id, status: "cancelled" };
  }
  const entities = summary?.entities ?? [];
  // Defensive: a row never reached (cannot happen in the definition's paths) must not read as a success.
  await endUnfinishedEntities(deps.runs, summary, { status: "failed", failure: serviceFailure("the run ended before this entity finished") });
  const failed = entities.some(
    (row) => REQUIRED_SUMMARY_ENTITIES.has(row.entity) && row.status !== "succeeded",
  );
  const status = failed ? "failed" : "succeeded";
  const finishedAt = deps.clock.now().toISOString();
  await deps.runs.finish(run.connection_id, run.run_id, { status, finishedAt });
  // A sync's notice needs no read more: the summary as read, finished. An audit's reads its heal counts (one GetItem a week).
  // A retried FinishRun sends the same event id, recorded once.
  if (summary !== null) {
    const audit = runModeOf(run.run_id) === "audit" ? await auditOf(deps, run.connection_id, run.run_id) : null;
    await runEndNotices(deps, run, { ...summary, status, finished_at: finishedAt }, audit);
  }
  await keepFigures(deps, run.connection_id, run.run_id, summary);
  await requestManagerRefresh(deps, run);
  deps.metrics.count(status === "succeeded" ? METRIC.runsSucceeded : METRIC.runsFailed, 1);
  deps.logger.info("run finished", {
    connection_id: run.connection_id,
    run_id: run.run_id,
    status,
    entities: entities.map((row) => ({ entity: row.entity, status: row.status, pages: row.pages, records: row.records })),
    unresolved_won_lost: summary?.unresolved_won_lost ?? 0,
  });
  return { run_id: run.run_id, status };
}

/**
 * The connection's figures follow what the run stored (an audit's heals: everything it read). They never fail or
 * hold up the run past their time limit: a refresh that cannot be made is logged, and the next run's end tries again.
 */
async function keepFigures(deps: SyncDeps, connectionId: string, runId: string, summary: RunSummary | null): Promise<void> {
  if (deps.figures === undefined) return;
  try {
    const changed = runModeOf(runId) === "audit" || summary === null ? "all" : changedBy(summary.entities);
    await refreshFigures({ ...deps, figures: deps.figures }, { connectionId, runId, changed });
  } catch (error) {
    deps.logger.warn("figures not refreshed at the run's end; the last ones are kept", { connection_id: connectionId, run_id: runId, error: error instanceof Error ? error.name : String(error) });
  }
}

/** The audit's summary with its heal counts, for "Audit Finished"; null (and logged) when it cannot be read: the run still ends. */
async function auditOf(deps: SyncDeps, connectionId: string, auditId: string): Promise<AuditSummary | null> {
  try {
    return await deps.runs.getAudit(connectionId, auditId);
  } catch (error) {
    deps.logger.error("audit summary not read at its end; Audit Finished not sent", {
      connection_id: connectionId,
      run_id: auditId,
      error: error instanceof Error ? error.name : String(error),
    });
    return null;
  }
}
