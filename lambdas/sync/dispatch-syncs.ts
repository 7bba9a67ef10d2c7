import { startSync } from "./start-sync";
import type { StartSyncDeps } from "./sync-deps";

export interface DispatchResult {
  readonly started: number;
  /** Connections whose previous run is still in progress. */
  readonly alreadyRunning: number;
  /** Connections whose owner paused the schedule (a manual sync still runs them). */
  readonly paused: number;
  readonly failed: number;
}

/** The scheduled dispatcher: starts a sync for every connection not paused; one failure does not stop the others. */
export async function dispatchSyncs(deps: StartSyncDeps): Promise<DispatchResult> {
  let started = 0;
  let alreadyRunning = 0;
  let paused = 0;
  let failed = 0;
  for (const connection of await deps.connections.listAll()) {
    if (connection.paused === true) {
      paused += 1;
      continue;
    }
    try {
      const result = await startSync(deps, connection);
      if (result.started) started += 1;
      else alreadyRunning += 1;
    } catch (error) {
      failed += 1;
      deps.logger.error("dispatch failed for connection", { connection_id: connection.id, error: String(error) });
    }
  }
  deps.logger.info("dispatch finished", { started, already_running: alreadyRunning, paused, failed });
  return { started, alreadyRunning, paused, failed };
}
