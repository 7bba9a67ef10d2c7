import { failUnfinishedPreflight, PREFLIGHT_ABANDONED_AFTER_MS } from "../preflight/preflight-failure";
import { startedPreflightRun, type PreflightRun } from "../preflight/preflight-run";
import { newRunId } from "../sync/run-id";
import { findConnection } from "./connection-operations";
import type { OnboardingDeps } from "./onboarding-deps";
import { NotFoundError, PreflightUnavailableError } from "./onboarding-errors";

/**
 * Starts the conformance kit against the connection's source, from the
 * service: answered at once (202) with the run, which goes on elsewhere and is
 * read back with getPreflight while it runs and when it is done.
 */
export async function startPreflight(deps: OnboardingDeps, account: string, id: string): Promise<PreflightRun> {
  const connection = await findConnection(deps, account, id);
  const now = deps.clock.now();
  const run = startedPreflightRun(newRunId(now), connection, now);
  await deps.preflights.put(run);
  try {
    await deps.preflightLauncher.launch({ business_account_id: account, connection_id: id, preflight_id: run.id });
  } catch (error) {
    deps.logger.warn("preflight could not be launched", { connection_id: id, preflight_id: run.id, error: error instanceof Error ? error.name : "unknown" });
    await deps.preflights.put({ ...run, status: "failed", finished_at: deps.clock.now().toISOString(), error: "the check could not be started; try again shortly" });
    throw new PreflightUnavailableError("the check could not be started; try again shortly", { cause: error });
  }
  deps.logger.info("preflight started", { business_account_id: account, connection_id: id, preflight_id: run.id });
  return run;
}

/**
 * One conformance run of the connection, as far as it has got. A run still "running" long after any worker could
 * (its process stopped, its failure lost) is ended here, failed by its time limit: never running for ever.
 */
export async function getPreflight(deps: OnboardingDeps, account: string, id: string, preflightId: string): Promise<PreflightRun> {
  await findConnection(deps, account, id);
  const run = deps.keySpace.isStorableId(preflightId) ? await deps.preflights.get(id, preflightId) : null;
  if (run === null) throw new NotFoundError(`no preflight ${preflightId}`);
  if (run.status === "running" && deps.clock.now().getTime() - Date.parse(run.started_at) >= PREFLIGHT_ABANDONED_AFTER_MS) {
    return (await failUnfinishedPreflight(deps, { business_account_id: account, connection_id: id, preflight_id: preflightId })) ?? run;
  }
  return run;
}
