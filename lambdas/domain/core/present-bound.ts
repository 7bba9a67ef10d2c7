import { CLOCK_SKEW_ALLOWANCE_SECONDS } from "./limits";

/*
 * The watermark never passes the present: a compared timestamp later than the
 * service's clock plus CLOCK_SKEW_ALLOWANCE_SECONDS is stored as the source
 * sent it, but never moves a watermark, and a stored watermark past that
 * bound (written before the rule existed) is not trusted.
 */

/** The latest compared timestamp that may move a watermark when the clock reads `now` (toISOString form). */
export function latestTrusted(now: Date): string {
  return new Date(now.getTime() + CLOCK_SKEW_ALLOWANCE_SECONDS * 1000).toISOString();
}

/**
 * A compared timestamp (toISOString form) past the bound. Plain string order
 * holds for four-digit years; toISOString writes a year past 9999 as
 * `+0YYYYY` and one before year 0 as `-0YYYYY`, which that order would misplace.
 */
export function isPastPresent(compared: string, bound: string): boolean {
  const sign = compared.charCodeAt(0);
  if (sign === PLUS) return true;
  if (sign === MINUS) return false;
  return compared > bound;
}

const PLUS = 43;
const MINUS = 45;

/** The stored watermark if it is not past the present (bound from `now`), else null: the entity restarts from sync_since. */
export function trustedWatermark(watermark: string | null, now: Date): string | null {
  return watermark !== null && isPastPresent(watermark, latestTrusted(now)) ? null : watermark;
}
