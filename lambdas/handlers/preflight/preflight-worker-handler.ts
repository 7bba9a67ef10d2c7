import * as v from "valibot";
import { runPreflightJob, type PreflightJobDeps } from "../../domain/preflight/preflight-job";
import { PreflightJobSchema } from "../../domain/preflight/preflight-run";

/** The preflight worker Lambda: parses the job the API launched and runs it; the outcome is in the stored report. */
export function makePreflightWorkerHandler(deps: PreflightJobDeps) {
  return async (event: unknown): Promise<void> => {
    await runPreflightJob(deps, v.parse(PreflightJobSchema, event));
  };
}
