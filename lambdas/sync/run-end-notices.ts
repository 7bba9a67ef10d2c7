import { freshnessHours, oldestDataAgeHours, staleEntities } from "../core/freshness";
import { DETAIL_TYPE } from "../core/service-events";
import { METRIC } from "../core/metric-names";
import type { RunSummary } from "../core/run-summary";
import { REQUIRED_ENTITIES } from "../ingestion/entity-catalog";
import type { ExecutionRun } from "./sync-state";
import type { SyncDeps } from "./sync-deps";

/**
 * What a run's end tells the world: "Sync Run Finished", the age of the
 * connection's oldest data (a metric), and "Connection Stale" once a required
 * entity's data is older than freshness_hours. Staleness is checked here, at
 * the end of every run of the connection, succeeded or failed: a source that
 * keeps failing leaves its data_as_of behind and the run that finds it too
 * old tells. The stale event's id names the stale data_as_of values, so it is
 * sent once per stale state, however many runs see it. Never throws: a notice
 * that cannot be sent is logged (by the publisher) and the run is unaffected.
 */
export async function runEndNotices(deps: SyncDeps, run: ExecutionRun, summary: RunSummary): Promise<void> {
  await deps.events.publish({
    detail_type: DETAIL_TYPE.syncRunFinished,
    detail: {
      event_id: `run-finished:${run.connection_id}:${run.run_id}`,
      business_account_id: run.business_account_id,
      connection_id: run.connection_id,
      run_id: run.run_id,
      status: summary.status === "running" ? "failed" : summary.status,
      started_at: summary.started_at,
      finished_at: summary.finished_at ?? deps.clock.now().toISOString(),
      unresolved_won_lost: summary.unresolved_won_lost,
      entities: summary.entities.map(({ entity, status, pages, records }) => ({ entity, status, pages, records })),
    },
  });
  try {
    await staleNotice(deps, run);
  } catch (error) {
    deps.logger.warn("freshness not checked at the run's end", {
      connection_id: run.connection_id,
      run_id: run.run_id,
      error: error instanceof Error ? error.name : String(error),
    });
  }
}

async function staleNotice(deps: SyncDeps, run: ExecutionRun): Promise<void> {
  const connection = await deps.connections.get(run.business_account_id, run.connection_id);
  if (connection === null) return; // deleted: nothing to be stale
  const freshness = await deps.records.getFreshness(run.connection_id);
  const now = deps.clock.now();
  const ageHours = oldestDataAgeHours(freshness, REQUIRED_ENTITIES, connection.created_at, now);
  deps.metrics.gauge(METRIC.oldestDataAge, Math.round(ageHours * 3600), { connection_id: run.connection_id });
  const hours = freshnessHours(connection.freshness_hours, deps.scheduleIntervalMs ?? null);
  const stale = staleEntities({ freshness, hours, required: REQUIRED_ENTITIES, createdAt: connection.created_at, now });
  if (hours === null || stale.length === 0) return;
  await deps.events.publish({
    detail_type: DETAIL_TYPE.connectionStale,
    detail: {
      event_id: `stale:${run.connection_id}:${stale.map((each) => `${each.entity}@${each.data_as_of ?? "never"}`).join(",")}`,
      business_account_id: run.business_account_id,
      connection_id: run.connection_id,
      freshness_hours: hours,
      detected_at: now.toISOString(),
      stale_entities: stale,
    },
  });
}
