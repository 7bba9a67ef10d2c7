/** The rate limit: per connection, across every caller of its source. */
export interface RateLimiter {
  /**
   * Resolves when one more request to the connection's source may start, so
   * that no one-second window ever holds more than `requestsPerSecond` starts.
   * Resolves to the start recorded for it (epoch ms), which may still be to
   * come: the request must not be sent before it, and one sent much later
   * than that must take a fresh slot.
   *
   * `replacing`: the start of this caller's own slot that went stale unused;
   * the new slot takes its place in the window instead of adding to it.
   */
  acquire(connectionId: string, requestsPerSecond: number, options?: { readonly replacing?: number }): Promise<number>;
}
