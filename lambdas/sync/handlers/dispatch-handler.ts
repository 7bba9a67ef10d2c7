import { dispatchSyncs, type DispatchResult } from "../dispatch-syncs";
import type { StartSyncDeps } from "../sync-deps";

/** The scheduled dispatcher (EventBridge rule in AWS, a timer locally): the event carries nothing it needs. */
export function makeDispatchHandler(deps: StartSyncDeps): (event?: unknown) => Promise<DispatchResult> {
  return () => dispatchSyncs(deps);
}
