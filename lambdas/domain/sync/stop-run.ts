import { cutDetail } from "../core/errors";
import { METRIC } from "../core/metric-names";
import type { EntityFailure } from "../core/run-summary";
import { caughtFailure } from "./entity-failure";
import { endUnfinishedEntities } from "./fail-unfinished-entities";
import { classifyCaught, type ClassifiedFailure } from "./failure-fault";
import type { SyncDeps } from "./sync-deps";
import type { CaughtState, SyncState } from "./sync-state";

/**
 * 401 (one token serves every entity) or a deleted connection: no further
 * request; every entity not yet finished fails with this error. Entities that
 * already finished keep their outcome.
 */
export async function stopRun(deps: SyncDeps, state: CaughtState): Promise<SyncState> {
  const { sourceDown: _sourceDown, ...failure } = caughtFailure(state.error);
  return stopUnfinished(deps, state, failure, classifyCaught(state.error));
}

/** Every entity of the run not finished yet fails with `failure`, and the run goes to its end. */
export async function stopUnfinished(deps: SyncDeps, state: SyncState, failure: EntityFailure, classified: ClassifiedFailure): Promise<SyncState> {
  const { run } = state;
  const ended = { ...failure, detail: cutDetail(failure.detail) };
  const failed = await endUnfinishedEntities(deps.runs, await deps.runs.get(run.connection_id, run.run_id), { status: "failed", failure: ended });
  for (const entity of failed) deps.metrics.count(METRIC.entityFailures, 1, { entity, ...classified });
  deps.logger.error("run stopped", { connection_id: run.connection_id, run_id: run.run_id, ...classified, rule: failure.rule, error: ended.detail });
  return { run, cursor: null, step: { outcome: "done" } };
}
