import { ConnectionNotFoundError } from "../core/errors";
import { METRIC } from "../core/metric-names";
import { caughtFailure } from "./entity-failure";
import { classifyCaught } from "./failure-fault";
import { finishEntityAndAdvance, handOverIfContinuing, loadConnection, summaryRowsOf } from "./entity-steps";
import { stopRun, stopUnfinished } from "./stop-run";
import type { SyncDeps } from "./sync-deps";
import type { CaughtState, SyncState } from "./sync-state";

/**
 * The entity failed (retries exhausted, a hard error, a bad page): report it
 * with its rule and fix, and go on with the next entity. Committed pages
 * stay; the next run resumes the entity from its watermark. When no try of
 * its page reached the source at all, the entities after it fail at once
 * with the same rule instead of each walking the retry ladder again.
 */
export async function entityFailed(deps: SyncDeps, state: CaughtState): Promise<SyncState> {
  if (state.cursor === null) throw new TypeError("entityFailed was called without a cursor");
  const { sourceDown, ...failure } = caughtFailure(state.error);
  const classified = classifyCaught(state.error);
  let connection;
  try {
    connection = await loadConnection(deps, state.run);
  } catch (error) {
    if (!(error instanceof ConnectionNotFoundError)) throw error;
    return stopRun(deps, { ...state, error: { Error: error.name, Cause: error.detail } });
  }
  deps.metrics.count(METRIC.entityFailures, 1, { entity: state.cursor.entity, ...classified });
  deps.logger.warn("entity failed", {
    connection_id: state.run.connection_id,
    run_id: state.run.run_id,
    entity: state.cursor.entity,
    ...classified,
    rule: failure.rule,
    error: failure.detail,
  });
  if (sourceDown) {
    const { entity, page } = state.cursor;
    await deps.runs.entitiesMoved(state.run.connection_id, state.run.run_id, { finished: summaryRowsOf(entity), outcome: { status: "failed", failure }, started: [] });
    const detail = `not tried: no try of ${entity}, page ${page}, reached the source, so the entities after it were not asked (${failure.detail})`;
    return stopUnfinished(deps, state, { ...failure, detail }, classified);
  }
  return handOverIfContinuing(deps, await finishEntityAndAdvance(deps, state.run, state.cursor, { status: "failed", failure }, connection));
}
