import type { AuditSummary, HealCause } from "../core/audit-summary";
import { runModeOf } from "../core/run-mode";
import { oldestDataAgeHours } from "../core/freshness";
import { DETAIL_TYPE } from "../core/service-events";
import { METRIC } from "../core/metric-names";
import type { RunStatus, RunSummary } from "../core/run-summary";
import { REQUIRED_ENTITIES } from "../source-contract/entity-catalog";
import type { ExecutionRun } from "./sync-state";
import type { SyncDeps } from "./sync-deps";
import { staleNotice } from "./stale-notice";

/**
 * What a run's end tells the world: "Sync Run Finished" (or, for an audit,
 * "Audit Finished" with what it healed), the age of the connection's oldest
 * data (a metric), and "Connection Stale" once a required entity's data is
 * older than freshness_hours. Staleness is checked here, at the end of every
 * run of the connection, succeeded or failed: a source that keeps failing
 * leaves its data_as_of behind and the run that finds it too old tells (a
 * paused connection has no runs: the tick checks it, stale-notice.ts). Never
 * throws: a notice that cannot be sent is logged (by the publisher) and the
 * run is unaffected.
 */
export async function runEndNotices(deps: SyncDeps, run: ExecutionRun, summary: RunSummary, audit: AuditSummary | null = null): Promise<void> {
  const status = summary.status === "running" ? "failed" : summary.status;
  const finishedAt = summary.finished_at ?? deps.clock.now().toISOString();
  if (runModeOf(run.run_id) === "audit") {
    // An audit is never told as a sync run; without its summary (logged by finishRun) it is not told at all.
    if (audit !== null) await auditFinished(deps, run, audit, status, finishedAt);
  } else {
    await deps.events.publish({
      detail_type: DETAIL_TYPE.syncRunFinished,
      detail: {
        event_id: `run-finished:${run.connection_id}:${run.run_id}`,
        business_account_id: run.business_account_id,
        connection_id: run.connection_id,
        run_id: run.run_id,
        status,
        started_at: summary.started_at,
        finished_at: finishedAt,
        unresolved_won_lost: summary.unresolved_won_lost,
        entities: summary.entities.map(({ entity, status, pages, records }) => ({ entity, status, pages, records })),
      },
    });
  }
  try {
    await runEndStaleNotice(deps, run);
  } catch (error) {
    deps.logger.warn("freshness not checked at the run's end", {
      connection_id: run.connection_id,
      run_id: run.run_id,
      error: error instanceof Error ? error.name : String(error),
    });
  }
}

/** "Audit Finished": what the audit healed, by cause over its entities, what the next sync brings, and what the source no longer returns. Never the token. */
async function auditFinished(deps: SyncDeps, run: ExecutionRun, audit: AuditSummary, status: Exclude<RunStatus, "running">, finishedAt: string): Promise<void> {
  const total = (cause: HealCause) => audit.entities.reduce((sum, row) => sum + row.healed[cause], 0);
  await deps.events.publish({
    detail_type: DETAIL_TYPE.auditFinished,
    detail: {
      event_id: `audit-finished:${run.connection_id}:${audit.id}`,
      business_account_id: run.business_account_id,
      connection_id: run.connection_id,
      audit_id: audit.id,
      status,
      started_at: audit.started_at,
      finished_at: finishedAt,
      healed: { missed: total("missed"), stale: total("stale"), changed_without_advancing: total("changed_without_advancing") },
      ahead_of_watermark: audit.entities.reduce((sum, row) => sum + row.ahead_of_watermark, 0),
      absent_in_source: audit.entities.reduce((sum, row) => sum + row.absent_in_source, 0),
    },
  });
}

async function runEndStaleNotice(deps: SyncDeps, run: ExecutionRun): Promise<void> {
  const connection = await deps.connections.get(run.business_account_id, run.connection_id);
  if (connection === null) return; // deleted: nothing to be stale
  const freshness = await deps.records.getFreshness(run.connection_id);
  const now = deps.clock.now();
  const ageHours = oldestDataAgeHours(freshness, REQUIRED_ENTITIES, connection.created_at, now);
  deps.metrics.gauge(METRIC.oldestDataAge, Math.round(ageHours * 3600), { connection_id: run.connection_id });
  await staleNotice(deps, connection, freshness, now);
}
