import { METRIC } from "../core/metric-names";
import { caughtErrorDetail } from "./caught-error-detail";
import { failUnfinishedEntities } from "./fail-unfinished-entities";
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
  const failed = await failUnfinishedEntities(deps.runs, await deps.runs.get(run.connection_id, run.run_id), detail);
  for (const entity of failed) deps.metrics.count(METRIC.entityFailures, 1, { entity, ...failure });
  deps.logger.error("run stopped", { connection_id: run.connection_id, run_id: run.run_id, ...failure, error: detail });
  return { run, cursor: null, step: { outcome: "done" } };
}
