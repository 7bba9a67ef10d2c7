import { ConnectionNotFoundError } from "../core/errors";
import { METRIC } from "../core/metric-names";
import { caughtErrorDetail } from "./caught-error-detail";
import { classifyCaught } from "./failure-fault";
import { finishEntityAndAdvance, handOverIfContinuing, loadConnection } from "./entity-steps";
import { stopRun } from "./stop-run";
import type { SyncDeps } from "./sync-deps";
import type { CaughtState, SyncState } from "./sync-state";

/**
 * The entity failed (retries exhausted, a hard error, a bad page): report it
 * and go on with the next entity. Committed pages stay; the next run resumes
 * the entity from its watermark.
 */
export async function entityFailed(deps: SyncDeps, state: CaughtState): Promise<SyncState> {
  if (state.cursor === null) throw new TypeError("entityFailed was called without a cursor");
  const detail = caughtErrorDetail(state.error);
  const failure = classifyCaught(state.error);
  let connection;
  try {
    connection = await loadConnection(deps, state.run);
  } catch (error) {
    if (!(error instanceof ConnectionNotFoundError)) throw error;
    return stopRun(deps, { ...state, error: { Error: error.name, Cause: error.detail } });
  }
  deps.metrics.count(METRIC.entityFailures, 1, { entity: state.cursor.entity, ...failure });
  deps.logger.warn("entity failed", {
    connection_id: state.run.connection_id,
    run_id: state.run.run_id,
    entity: state.cursor.entity,
    ...failure,
    error: detail,
  });
  return handOverIfContinuing(
    deps,
    await finishEntityAndAdvance(deps, state.run, state.cursor, { status: "failed", error: detail }, connection),
  );
}
