import type { RateLimiter, SourceClient } from "../core/ports";

export interface RateLimitedConnection {
  readonly connectionId: string;
  /** The connection's rate_limit: requests per second, integer >= 1. */
  readonly rateLimit: number;
}

/**
 * The source client behind the connection's rate limit: every fetchPage (a
 * retry included) first takes a slot from the limiter, which is shared with
 * every other caller of that connection's source.
 */
export function rateLimited(source: SourceClient, limiter: RateLimiter, connection: RateLimitedConnection): SourceClient {
  const { connectionId, rateLimit } = connection;
  return {
    async fetchPage(sourceConnection, request) {
      await limiter.acquire(connectionId, rateLimit);
      return source.fetchPage(sourceConnection, request);
    },
  };
}
