import type { Clock, Sleep } from "../core/ports/clock";
import { realSleep, systemClock } from "../core/ports/clock";
import type { RateLimiter } from "../core/ports/rate-limiter";
import type { SourceClient } from "../core/ports/source-client";
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
 * after the start recorded for it. A slot recorded ahead (the limiter records
 * slots as far ahead as its writes take) is waited for: a request never
 * leaves before its recorded start, and the slot is checked again after the
 * wait (a timer that fires late on a busy event loop would otherwise send it
 * long after its start, eating the window's margin: test "no one-second
 * window above the rate").
 */
export function rateLimited(
  source: SourceClient,
  limiter: RateLimiter,
  connection: RateLimitedConnection,
  /** Real time by default, as the limiter's: the rate is the source's. */
  clock: Clock = systemClock,
  /** A slot already being taken (acquire called early, e.g. while the connection is read): the first request uses it. */
  firstSlot?: Promise<number>,
  /** Real-time sleep until a slot's start that is still to come. */
  sleep: Sleep = realSleep,
): SourceClient {
  const { connectionId, rateLimit } = connection;
  let reserved = firstSlot;
  const acquire = (stale?: number): Promise<number> => {
    // A stale slot was never used: the fresh one replaces it in the window (no slot of the window is lost).
    const slot = reserved ?? limiter.acquire(connectionId, rateLimit, stale === undefined ? undefined : { replacing: stale });
    reserved = undefined;
    return slot;
  };
  return {
    async fetchPage(sourceConnection, request) {
      let slot = await acquire();
      for (let stale = 0; ; ) {
        // A slot whose start is still to come: the request waits for it (the window counts it from there),
        // then looks again: a timer can fire late, and a request must not leave long after its slot either.
        const early = slot - clock.now().getTime();
        if (early > 0) {
          await sleep(early);
          continue;
        }
        if (-early <= SLOT_LATE_MS) break;
        stale += 1;
        if (stale >= MAX_STALE_SLOTS) {
          throw new RateLimitSlotsStaleError(
            `${MAX_STALE_SLOTS} rate-limit slots in a row went stale before the request could be sent (the service is overloaded); retried`,
          );
        }
        slot = await acquire(slot);
      }
      return source.fetchPage(sourceConnection, request);
    },
  };
}
