import { describe, expect, test } from "vitest";
import { WATERMARK_SAFETY_MARGIN_SECONDS } from "../../../lambdas/domain/core/limits";
import { updatedSince } from "../../../lambdas/domain/sync/updated-since";

/** The spec's form: `<YYYY-MM-DD>T<HH:MM:SS>+<HH:MM>`, a four-digit year. */
const SPEC_FORM = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+00:00$/;
const SYNC_SINCE = "2026-01-01T00:00:00.000Z";

describe("updated_since is always the spec's form", () => {
  test("the first run asks from sync_since; later ones from the watermark less the safety margin, floored to the second", () => {
    expect(WATERMARK_SAFETY_MARGIN_SECONDS).toBe(120);
    expect(updatedSince(null, SYNC_SINCE)).toBe("2026-01-01T00:00:00+00:00");
    expect(updatedSince("2026-03-01T10:00:00.999Z", SYNC_SINCE)).toBe("2026-03-01T09:58:00+00:00");
  });

  test("updated_since is always YYYY-MM-DDTHH:MM:SS+HH:MM with a four-digit year: a watermark before year 1, or one that cannot be written so, falls back to sync_since", () => {
    const cases: [string, string][] = [
      // A record dated year 0000 made the watermark: less the margin it is year -1.
      ["0000-01-01T00:00:00.000Z", "2026-01-01T00:00:00+00:00"],
      // Year 0001 less the margin is year 0000, before the spec's year 1.
      ["0001-01-01T00:01:00.000Z", "2026-01-01T00:00:00+00:00"],
      ["-000001-12-31T23:00:00.000Z", "2026-01-01T00:00:00+00:00"],
      ["not a time", "2026-01-01T00:00:00+00:00"],
      // The first writable instant, once the margin is taken: kept.
      ["0001-01-01T00:02:00.000Z", "0001-01-01T00:00:00+00:00"],
      ["9999-12-31T23:59:59.000Z", "9999-12-31T23:57:59+00:00"],
      ["+010000-01-01T04:59:59.000Z", "2026-01-01T00:00:00+00:00"],
    ];
    for (const [watermark, expected] of cases) {
      const since = updatedSince(watermark, SYNC_SINCE);
      expect(since, watermark).toBe(expected);
      expect(since, watermark).toMatch(SPEC_FORM);
    }
  });

  test("a sync_since that cannot be written so gives the earliest instant the spec's form can write", () => {
    expect(updatedSince(null, "0000-06-01T00:00:00.000Z")).toBe("0001-01-01T00:00:00+00:00");
  });
});
