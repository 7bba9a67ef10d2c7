import { MIN_RETRY_AFTER_SECONDS } from "../core/limits";

// RFC 9110 HTTP-date: IMF-fixdate ("Sun, 06 Nov 1994 08:49:37 GMT") or the obsolete RFC 850 form
// ("Sunday, 06-Nov-94 08:49:37 GMT"). Checked first because Date.parse accepts almost anything.
const HTTP_DATE = /^[A-Za-z]{3,9}, \d{2}[ -][A-Za-z]{3}[ -]\d{2,4} \d{2}:\d{2}:\d{2} GMT$/;
const DELTA_SECONDS = /^\d+(?:\.\d+)?$/;

/**
 * Seconds to wait after a 429: Retry-After as delta-seconds or an HTTP-date,
 * rounded up to whole seconds and at least MIN_RETRY_AFTER_SECONDS. A missing
 * or unreadable header means the minimum.
 */
export function retryAfterSeconds(header: string | null | undefined, nowMs: number = Date.now()): number {
  const value = header?.trim() ?? "";
  let seconds = Number.NaN;
  if (DELTA_SECONDS.test(value)) {
    seconds = Number(value);
  } else if (HTTP_DATE.test(value)) {
    seconds = (Date.parse(value) - nowMs) / 1000;
  }
  if (!Number.isFinite(seconds)) return MIN_RETRY_AFTER_SECONDS;
  return Math.max(MIN_RETRY_AFTER_SECONDS, Math.ceil(seconds));
}
