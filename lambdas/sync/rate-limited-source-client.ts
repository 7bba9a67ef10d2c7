import type { RateLimiter, SourceClient } from "../core/ports";
import { RateLimitSlotsStaleError } from "../core/errors";
import { MAX_STALE_SLOTS, SLOT_LATE_MS } from "../core/limits";

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
  /** A slot already being taken (acquire called early, e.g. while the connection is read): the first request uses it. */
  firstSlot?: Promise<number>,
): SourceClient {
  const { connectionId, rateLimit } = connection;
  let reserved = firstSlot;
  const acquire = (): Promise<number> => {
    const slot = reserved ?? limiter.acquire(connectionId, rateLimit);
    reserved = undefined;
    return slot;
  };
  return {
    async fetchPage(sourceConnection, request) {
      for (let stale = 0; now() - (await acquire()) > SLOT_LATE_MS; stale += 1) {
        if (stale + 1 >= MAX_STALE_SLOTS) {
          throw new RateLimitSlotsStaleError(
            `${MAX_STALE_SLOTS} rate-limit slots in a row went stale before the request could be sent (the service is overloaded); retried`,
          );
        }
      }
      return source.fetchPage(sourceConnection, request);
    },
  };
}
