import { describe, expect, test } from "vitest";
import * as v from "valibot";
import { scheduleLabel } from "../../lambdas/local/local-runtime";
import { ScheduleSchema } from "../../lambdas/sync/schedule-interval";

describe("the local runtime tells the API its SCHEDULE", () => {
  test.each([
    ["1h", "1h"],
    ["15m", "15m"],
    ["90m", "90m"],
    ["120m", "2h"],
    ["30s", "30s"],
    ["off", "off"],
  ])("schedule: SCHEDULE=%s is shown on each connection as %s", (setting, shown) => {
    expect(scheduleLabel(v.parse(ScheduleSchema, setting))).toBe(shown);
  });
});
