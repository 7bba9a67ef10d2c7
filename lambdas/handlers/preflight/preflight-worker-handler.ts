import * as v from "valibot";
import { failUnfinishedPreflight, type PreflightFailureDeps } from "../../domain/preflight/preflight-failure";
import { runPreflightJob, type PreflightJobDeps } from "../../domain/preflight/preflight-job";
import { PreflightJobSchema } from "../../domain/preflight/preflight-run";

/** The preflight worker Lambda: parses the job the API launched and runs it; the outcome is in the stored report. */
export function makePreflightWorkerHandler(deps: PreflightJobDeps) {
  return async (event: unknown): Promise<void> => {
    await runPreflightJob(deps, v.parse(PreflightJobSchema, event));
  };
}

/**
 * What Lambda sends the worker's on-failure destination when an invocation failed or timed out (or waited too long
 * to start): the job it was given is `requestPayload`; the rest (condition, error) is read from the clock instead.
 */
const FailedInvocationSchema = v.object({ requestPayload: PreflightJobSchema });

/** The on-failure destination's Lambda: ends the job's run failed, by its time limit or on an error of ours. */
export function makePreflightFailedHandler(deps: PreflightFailureDeps) {
  return async (event: unknown): Promise<void> => {
    await failUnfinishedPreflight(deps, v.parse(FailedInvocationSchema, event).requestPayload);
  };
}
