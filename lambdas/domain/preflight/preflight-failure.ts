import type { Clock } from "../core/ports/clock";
import type { Logger } from "../core/ports/logger";
import type { PreflightJob, PreflightRun, PreflightStore } from "./preflight-run";
import { preflightTimeLimit, type PreflightStopPoint } from "../source-contract/rules/preflight-rules";

/**
 * How long the service's check may run, from the owner's request: the worker Lambda's 15 minutes
 * (lib/service-function.ts, FUNCTION_SIZES.preflightWorker) less one, to save the report before Lambda stops it.
 */
export const PREFLIGHT_TIME_LIMIT_MS = 14 * 60_000;
/** A run still "running" this long after it started has lost its worker: Lambda stops every invocation at 15 minutes. */
export const PREFLIGHT_ABANDONED_AFTER_MS = 16 * 60_000;
/** The sentence of a check that stopped for a reason of ours, not the source's. */
export const PREFLIGHT_INTERNAL_ERROR = "the check stopped on an internal error; try again";

/** The run ended by its time limit: failed, with its findings so far, the time limit's finding and its sentence. */
export function timedOutRun(run: PreflightRun, now: Date, stoppedAt: PreflightStopPoint): PreflightRun {
  // Never below the limit: a run is only ever timed out once it is reached.
  const elapsedMs = Math.max(now.getTime() - Date.parse(run.started_at), PREFLIGHT_TIME_LIMIT_MS);
  const detail = preflightTimeLimit.check({ elapsedMs, limitMs: PREFLIGHT_TIME_LIMIT_MS, stoppedAt }) as string;
  const finding = { rule: preflightTimeLimit.id, severity: preflightTimeLimit.severity, endpoint: stoppedAt?.endpoint ?? "/", detail, spec: preflightTimeLimit.spec, request: "" };
  return {
    ...run,
    status: "failed",
    conforms: false,
    findings: [...run.findings.filter((each) => each.rule !== preflightTimeLimit.id), finding],
    progress: null,
    finished_at: now.toISOString(),
    error: detail,
  };
}

export interface PreflightFailureDeps {
  readonly preflights: PreflightStore;
  readonly clock: Clock;
  readonly logger: Logger;
}

/**
 * Ends a run whose worker stopped without ending it (Lambda's on-failure destination, the local launcher's failed
 * promise, or a read long after its start): past the time limit it failed by it, with the rule and the sentence;
 * before, on an error of ours. A run that already ended is left as it is.
 */
export async function failUnfinishedPreflight(deps: PreflightFailureDeps, job: PreflightJob): Promise<PreflightRun | null> {
  const run = await deps.preflights.get(job.connection_id, job.preflight_id);
  if (run === null || run.status !== "running") return run;
  const now = deps.clock.now();
  const failed: PreflightRun =
    now.getTime() - Date.parse(run.started_at) >= PREFLIGHT_TIME_LIMIT_MS
      ? timedOutRun(run, now, run.progress)
      : { ...run, status: "failed", progress: null, finished_at: now.toISOString(), error: PREFLIGHT_INTERNAL_ERROR };
  await deps.preflights.put(failed);
  deps.logger.warn("preflight ended without its worker", { connection_id: job.connection_id, preflight_id: job.preflight_id, error: failed.error });
  return failed;
}
