import type { RateLimiter, SourceClient } from "../core/ports";
import { SLOT_LATE_MS } from "../core/limits";

export interface RateLimitedConnection {
  readonly connectionId: string;
  /** The connection's rate_limit: requests per second, integer >= 1. */
  readonly rateLimit: number;
}

/**
 * The source client behind the connection's rate limit: every fetchPage (a
 * retry included) first takes a slot from the limiter, which is shared with
 * every other caller of that connection's source. Work of other requests can
 * run between taking a slot and sending (another page's validation, a GC
 * pause): a slot that has gone stale by then is left unused (it only makes the
 * window stricter) and a fresh one is taken, so a request is never sent long
 * after the start recorded for it.
 */
export function rateLimited(
  source: SourceClient,
  limiter: RateLimiter,
  connection: RateLimitedConnection,
  now: () => number = Date.now,
): SourceClient {
  const { connectionId, rateLimit } = connection;
  return {
    async fetchPage(sourceConnection, request) {
      while (now() - (await limiter.acquire(connectionId, rateLimit)) > SLOT_LATE_MS) {
        // Stale slot: take another.
      }
      return source.fetchPage(sourceConnection, request);
    },
  };
}
