import { describe, expect, test } from "vitest";
import { CLOCK_SKEW_ALLOWANCE_SECONDS } from "../../../lambdas/domain/core/limits";
import { isPastPresent, latestTrusted, trustedWatermark } from "../../../lambdas/domain/core/present-bound";

const NOW = new Date("2026-11-27T12:00:00.000Z");
const at = (seconds: number) => new Date(NOW.getTime() + seconds * 1000).toISOString();

describe("the watermark never passes the present", () => {
  test("the bound is the clock plus the stated allowance: exactly at it is trusted, one second past it is not", () => {
    expect(CLOCK_SKEW_ALLOWANCE_SECONDS).toBe(600);
    const bound = latestTrusted(NOW);
    expect(bound).toBe("2026-11-27T12:10:00.000Z");
    expect(isPastPresent(at(CLOCK_SKEW_ALLOWANCE_SECONDS), bound)).toBe(false);
    expect(isPastPresent(at(CLOCK_SKEW_ALLOWANCE_SECONDS + 1), bound)).toBe(true);
    expect(isPastPresent(at(-3600), bound)).toBe(false);
    expect(isPastPresent("9999-12-31T23:59:59.000Z", bound)).toBe(true);
  });

  test("years written with a sign are placed by their instant: past 9999 is future, before year 0 is past", () => {
    const bound = latestTrusted(NOW);
    // 9999-12-31T23:59:59-05:00 is in year 10000 UTC.
    expect(new Date(Date.UTC(10000, 0, 1, 4, 59, 59)).toISOString()).toBe("+010000-01-01T04:59:59.000Z");
    expect(isPastPresent("+010000-01-01T04:59:59.000Z", bound)).toBe(true);
    expect(isPastPresent("-000001-12-31T23:00:00.000Z", bound)).toBe(false);
    expect(isPastPresent("0000-01-01T00:00:00.000Z", bound)).toBe(false);
  });

  test("a stored watermark past the present is not trusted (the entity restarts from sync_since); one at the bound is kept", () => {
    expect(trustedWatermark("9999-12-31T23:59:59.000Z", NOW)).toBeNull();
    expect(trustedWatermark(at(CLOCK_SKEW_ALLOWANCE_SECONDS + 1), NOW)).toBeNull();
    expect(trustedWatermark(at(CLOCK_SKEW_ALLOWANCE_SECONDS), NOW)).toBe(at(CLOCK_SKEW_ALLOWANCE_SECONDS));
    expect(trustedWatermark("2026-11-27T11:00:00.000Z", NOW)).toBe("2026-11-27T11:00:00.000Z");
    expect(trustedWatermark(null, NOW)).toBeNull();
  });
});
