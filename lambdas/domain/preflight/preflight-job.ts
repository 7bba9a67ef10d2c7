import type { Clock } from "../core/ports/clock";
import type { ConnectionStore } from "../core/ports/connection-store";
import type { Logger } from "../core/ports/logger";
import type { RateLimiter } from "../core/ports/rate-limiter";
import type { TokenCipher } from "../core/ports/token-cipher";
import { redactSecret } from "../source-contract/redact-secret";
import { PreflightCannotRunError, PreflightTimeLimitReachedError } from "./preflight-errors";
import { PREFLIGHT_INTERNAL_ERROR, PREFLIGHT_TIME_LIMIT_MS, timedOutRun } from "./preflight-failure";
import type { PreflightJob, PreflightRun, PreflightStore } from "./preflight-run";
import { runPreflight } from "./run-preflight";
import type { PreflightFetch } from "./source-transport";

/**
 * Pages per endpoint the service's check reads: enough to meet every paging
 * and record rule on a real source while a Lambda (at most 15 minutes) can
 * finish it at 5 requests per second. The CLI reads up to the spec's 5000.
 */
export const PREFLIGHT_SERVICE_MAX_PAGES = 100;
/** A running report is saved at most this often (the report of a large source grows page by page). */
export const PREFLIGHT_PROGRESS_SAVE_MS = 1_000;

export interface PreflightJobDeps {
  readonly connections: ConnectionStore;
  readonly cipher: TokenCipher;
  readonly preflights: PreflightStore;
  /** The connection's own limiter: the kit shares the connection's rate with its syncs and test calls. */
  readonly limiter: RateLimiter;
  /** The SSRF-guarded fetch of the service: the kit reaches only what a sync may reach. */
  readonly sourceFetch: PreflightFetch;
  readonly clock: Clock;
  readonly logger: Logger;
}

/**
 * Runs the conformance kit from the service for one connection: its stored
 * token, its base_url through the SSRF guard, at its rate_limit under its
 * shared limiter. Saves the report as it grows and when done; a kit that
 * cannot run leaves a failed report saying why, and one that reaches its time
 * limit (PREFLIGHT_TIME_LIMIT_MS from the owner's request) stops before its
 * next request and fails by preflight.time-limit. Never throws for the
 * source's sake: every outcome is in the stored report.
 */
export async function runPreflightJob(deps: PreflightJobDeps, job: PreflightJob): Promise<PreflightRun | null> {
  const started = await deps.preflights.get(job.connection_id, job.preflight_id);
  if (started === null) {
    deps.logger.warn("preflight job without its report", { connection_id: job.connection_id, preflight_id: job.preflight_id });
    return null;
  }
  const finish = async (outcome: Partial<PreflightRun>): Promise<PreflightRun> => {
    const done: PreflightRun = { ...started, ...outcome, progress: null, finished_at: deps.clock.now().toISOString() };
    await deps.preflights.put(done);
    deps.logger.info("preflight finished", { connection_id: job.connection_id, preflight_id: job.preflight_id, status: done.status, findings: done.findings.length });
    return done;
  };

  const connection = await deps.connections.get(job.business_account_id, job.connection_id);
  if (connection === null) return finish({ status: "failed", error: "the connection was deleted before the check could run" });
  let token: string;
  try {
    token = await deps.cipher.decrypt(connection.token_ciphertext, { businessAccountId: job.business_account_id, connectionId: job.connection_id });
  } catch {
    return finish({ status: "failed", error: "the stored token could not be decrypted: set it again with PATCH" });
  }

  let saving = Promise.resolve();
  let savedAt = Number.NEGATIVE_INFINITY;
  // The report as far as the run got, and where it stood: what a run stopped by its time limit keeps.
  let latest: PreflightRun = started;
  let timedOut = false;
  const deadline = Date.parse(started.started_at) + PREFLIGHT_TIME_LIMIT_MS;
  try {
    const result = await runPreflight({
      baseUrl: connection.base_url,
      token,
      rate: connection.rate_limit,
      maxPages: PREFLIGHT_SERVICE_MAX_PAGES,
      fetch: async (url, init) => {
        stopAtDeadline();
        await deps.limiter.acquire(connection.id, connection.rate_limit);
        stopAtDeadline();
        return deps.sourceFetch(url, init);
      },
      onProgress: ({ endpoint, page, report }) => {
        latest = { ...started, ...report(), progress: { endpoint, page } };
        const now = deps.clock.now().getTime();
        if (now - savedAt < PREFLIGHT_PROGRESS_SAVE_MS) return;
        savedAt = now;
        const partial = latest;
        saving = saving.then(() => deps.preflights.put(partial)).catch(() => undefined);
      },
    });
    await saving;
    return await finish({ ...result.report, status: "succeeded", error: null });
  } catch (error) {
    await saving;
    // The kit reads a failed fetch as an unreachable source; this flag says it was the time limit.
    if (timedOut) return finishTimedOut();
    if (error instanceof PreflightCannotRunError) return finish({ status: "failed", error: redactSecret(error.message, token) });
    deps.logger.error("preflight failed", { connection_id: job.connection_id, preflight_id: job.preflight_id, error: error instanceof Error ? error.name : "unknown" });
    return finish({ status: "failed", error: PREFLIGHT_INTERNAL_ERROR });
  }

  function stopAtDeadline(): void {
    if (deps.clock.now().getTime() < deadline) return;
    timedOut = true;
    throw new PreflightTimeLimitReachedError(`the check reached its time limit of ${PREFLIGHT_TIME_LIMIT_MS} ms`);
  }

  async function finishTimedOut(): Promise<PreflightRun> {
    const done = timedOutRun(latest, deps.clock.now(), latest.progress);
    await deps.preflights.put(done);
    deps.logger.info("preflight finished", { connection_id: job.connection_id, preflight_id: job.preflight_id, status: done.status, findings: done.findings.length });
    return done;
  }
}
