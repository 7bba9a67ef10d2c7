import * as v from "valibot";
import { refreshManagers, type RefreshDeps, type RefreshResult } from "../../domain/analytics/refresh-managers";

/** The refresh's event: what FinishRun's ManagerRefresher sends. */
export const ManagerRefreshEventSchema = v.object({ connectionId: v.pipe(v.string(), v.nonEmpty()), force: v.boolean() });

/** The ManagerRefresh function's handler: parse the job, recompute the connection's per-manager aggregates. */
export function makeManagerRefreshHandler(deps: RefreshDeps): (event: unknown) => Promise<RefreshResult> {
  return async (event) => refreshManagers(deps, v.parse(ManagerRefreshEventSchema, event));
}
