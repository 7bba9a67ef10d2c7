import * as v from "valibot";
import { describe, expect, test } from "vitest";
import { ScheduleSchema } from "../../../lambdas/domain/sync/schedule-interval";

describe("SCHEDULE", () => {
  test.each([
    ["off", null],
    ["30s", 30_000],
    ["15m", 900_000],
    [" 1H ", 3_600_000],
  ])("SCHEDULE %s reads as %s ms", (text, ms) => {
    expect(v.parse(ScheduleSchema, text)).toBe(ms);
  });

  test.each(["", "5", "1d", "0s", "soon"])("SCHEDULE %j is refused with a message that says what is expected", (text) => {
    expect(() => v.parse(ScheduleSchema, text)).toThrow(/SCHEDULE must/);
  });
});
