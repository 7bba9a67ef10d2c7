import type { RunReference } from "../core/run-reference";
import { runModeOf } from "../core/run-mode";
import type { SyncDeps } from "./sync-deps";

/**
 * A run's end asks for the per-manager figures to be recomputed (the refresh
 * itself skips a run that wrote nothing); an audit's heals move no watermark,
 * so its end forces one. A refresh that cannot be asked for never fails the
 * run: the next run's end asks again.
 */
export async function requestManagerRefresh(deps: Pick<SyncDeps, "managerRefresher" | "logger">, run: Pick<RunReference, "connection_id" | "run_id">): Promise<void> {
  if (deps.managerRefresher === undefined) return;
  try {
    await deps.managerRefresher.request({ connectionId: run.connection_id, force: runModeOf(run.run_id) === "audit" });
  } catch (error) {
    deps.logger.error("manager figures refresh not requested", { connection_id: run.connection_id, error: error instanceof Error ? error.name : String(error) });
  }
}
