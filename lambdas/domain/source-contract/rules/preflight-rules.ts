import { rule } from "../rule";

/** Where a check stood when it stopped: the endpoint and page it was reading, or null before its first page. */
export type PreflightStopPoint = { readonly endpoint: string; readonly page: number } | null;

/**
 * The service's check (POST .../preflight) runs in one Lambda invocation, so it has a time limit the CLI has not: a
 * source too slow at its declared rate for the check's pages ends it failed, never "running".
 */
export const preflightTimeLimit = rule<{ readonly elapsedMs: number; readonly limitMs: number; readonly stoppedAt: PreflightStopPoint }>({
  id: "preflight.time-limit",
  severity: "error",
  spec: "Limits (request rate)",
  fix: "Declare the highest rate_limit the source sustains and answer each page within a few seconds, so the service's check reads its pages within its time limit.",
  check: ({ elapsedMs, limitMs, stoppedAt }) => {
    if (elapsedMs < limitMs) return null;
    const where = stoppedAt === null ? "before it could read a first page" : `at ${stoppedAt.endpoint}, page ${stoppedAt.page}`;
    return `the check did not finish within its ${Math.round(limitMs / 60_000)} minutes and stopped ${where}: declare the highest rate_limit the source sustains and answer each page faster, then check again`;
  },
});
