import * as v from "valibot";
import { RunSummarySchema, type RunSummary } from "../core/run-summary";
import { startSync } from "../sync/start-sync";
import { findConnection } from "./connection-operations";
import type { OnboardingDeps } from "./onboarding-deps";
import { ConflictError, NotFoundError } from "./onboarding-errors";
import { runModeOf } from "../core/run-mode";
import { runInProgress } from "./audit-operations";

/** Runs listed per connection, newest first. */
export const RUN_LIST_LIMIT = 50;

/** The run a sync request started, or the one already in progress. */
export const RunStartedSchema = v.object({ id: v.string(), status: v.literal("running") });
export type RunStarted = v.InferOutput<typeof RunStartedSchema>;

/** GET /syncs: run summaries, newest first. */
export const RunListSchema = v.object({ data: v.array(RunSummarySchema) });

/** Starts a sync now, or returns the run already in progress; 409 while an audit of the connection runs. */
export async function triggerSync(deps: OnboardingDeps, account: string, id: string): Promise<RunStarted> {
  const connection = await findConnection(deps, account, id);
  const { runId } = await startSync(deps, connection);
  if (runModeOf(runId) === "audit") throw new ConflictError(`a sync cannot start now: ${runInProgress(runId)}`);
  return { id: runId, status: "running" };
}

export async function listRuns(deps: OnboardingDeps, account: string, id: string): Promise<RunSummary[]> {
  await findConnection(deps, account, id);
  return deps.runs.list(id, { limit: RUN_LIST_LIMIT });
}

export async function getRun(deps: OnboardingDeps, account: string, id: string, runId: string): Promise<RunSummary> {
  await findConnection(deps, account, id);
  // An audit is a run of its own kind: GET .../audits/{id} shows it.
  const run = deps.keySpace.isStorableId(runId) && runModeOf(runId) === "sync" ? await deps.runs.get(id, runId) : null;
  if (run === null) throw new NotFoundError(`no run ${runId}`);
  return run;
}
