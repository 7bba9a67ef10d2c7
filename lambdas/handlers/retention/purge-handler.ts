import { purgeDeletedConnections, type PurgeDeps, type PurgeResult } from "../../domain/retention/purge-deleted-connections";

/** The hourly purge of deleted connections' data (EventBridge rule in AWS, a timer locally): the event carries nothing it needs. */
export function makePurgeHandler(deps: PurgeDeps): (event?: unknown) => Promise<PurgeResult> {
  return () => purgeDeletedConnections(deps);
}
