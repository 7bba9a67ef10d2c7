import { METRIC } from "../core/metric-names";
import { caughtErrorDetail } from "./caught-error-detail";
import { classifyCaught } from "./failure-fault";
import type { SyncDeps } from "./sync-deps";
import type { CaughtState, SyncState } from "./sync-state";

/**
 * 401 (one token serves every entity) or a deleted connection: no further
 * request; every entity not yet finished fails with this error. Entities that
 * already finished keep their outcome.
 */
export async function stopRun(deps: SyncDeps, state: CaughtState): Promise<SyncState> {
  const { run } = state;
  const detail = caughtErrorDetail(state.error);
  const failure = classifyCaught(state.error);
  const summary = await deps.runs.get(run.connection_id, run.run_id);
  for (const row of summary?.entities ?? []) {
    if (row.status === "pending" || row.status === "running") {
      await deps.runs.entityFinished(run.connection_id, run.run_id, row.entity, { status: "failed", error: detail });
      deps.metrics.count(METRIC.entityFailures, 1, { entity: row.entity, ...failure });
    }
  }
  deps.logger.error("run stopped", { connection_id: run.connection_id, run_id: run.run_id, ...failure, error: detail });
  return { run, cursor: null, step: { outcome: "done" } };
}
