import { findConnection } from "./connection-operations";
import { connectionResource, type ConnectionResource } from "./connection-resource";
import type { OnboardingDeps } from "./onboarding-deps";

/**
 * Pauses or resumes the schedule of one connection. Idempotent. The scheduled
 * dispatcher skips a paused connection; a manual sync still runs, and a run in
 * progress goes on (cancel stops it).
 */
export async function setPaused(
  deps: OnboardingDeps,
  account: string,
  id: string,
  paused: boolean,
): Promise<ConnectionResource> {
  const current = await findConnection(deps, account, id);
  if ((current.paused === true) === paused) return connectionResource(deps, current);
  const { paused: _was, ...rest } = current;
  const next = { ...rest, ...(paused ? { paused: true } : {}), updated_at: deps.clock.now().toISOString() };
  await deps.connections.put(next);
  deps.logger.info(paused ? "connection paused" : "connection resumed", { business_account_id: account, connection_id: id });
  return connectionResource(deps, next);
}
