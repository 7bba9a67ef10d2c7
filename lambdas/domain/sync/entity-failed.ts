import { ConnectionNotFoundError } from "../core/errors";
import { METRIC } from "../core/metric-names";
import { caughtFailure } from "./entity-failure";
import { classifyCaught } from "./failure-fault";
import { finishEntityAndAdvance, handOverIfContinuing, loadConnection, summaryRowsOf } from "./entity-steps";
import { stopRun, stopUnfinished } from "./stop-run";
import type { SyncDeps } from "./sync-deps";
import type { CaughtState, SyncCursor, SyncState } from "./sync-state";
import { entitiesOfMode, runModeOf } from "../core/run-mode";

/**
 * The entity failed (retries exhausted, a hard error, a bad page): report it
 * with its rule and fix, and go on with the next entity. Committed pages
 * stay; the next run resumes the entity from its watermark. When no try of
 * its page reached the source at all, the entities after it fail at once
 * with the same rule instead of each walking the retry ladder again.
 */
export async function entityFailed(deps: SyncDeps, caught: CaughtState): Promise<SyncState> {
  if (caught.cursor === null) throw new TypeError("entityFailed was called without a cursor");
  const cursor = await committedCursor(deps, caught.run, caught.cursor);
  if (cursor === null) return { run: caught.run, cursor: null, step: { outcome: "done" } };
  const state = { ...caught, cursor };
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

/**
 * The entity to fail: the cursor's, unless the run summary says it finished.
 * The Standard parent fails a segment that failed through every retry at the
 * cursor the last segment ended on, and that segment may have finished the
 * cursor's entity before it failed: the entity still running is the one the
 * segment failed on (none: every entity finished, and the run ends).
 */
async function committedCursor(deps: Pick<SyncDeps, "runs">, run: CaughtState["run"], cursor: SyncCursor): Promise<SyncCursor | null> {
  const summary = await deps.runs.get(run.connection_id, run.run_id);
  const status = (entity: string) => summary?.entities.find((row) => row.entity === entity)?.status;
  if (summary === null || status(cursor.entity) === "running") return cursor;
  const order = entitiesOfMode(runModeOf(run.run_id));
  const running = order.find((entity) => status(entity) === "running");
  if (running === undefined) return order.some((entity) => status(entity) === "pending") ? cursor : null;
  return { ...cursor, entity: running, page: 1, previous: null };
}
