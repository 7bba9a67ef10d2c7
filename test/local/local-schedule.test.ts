import * as v from "valibot";
import { describe, expect, test } from "vitest";
import { ScheduleSchema, startLocalSchedule } from "../../lambdas/local/local-schedule";

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

  test("the local schedule runs the dispatcher on a timer, one tick at a time, until stopped", async () => {
    let ticks = 0;
    let running = 0;
    let overlapped = false;
    const stop = startLocalSchedule(
      20,
      async () => {
        running += 1;
        overlapped ||= running > 1;
        ticks += 1;
        await new Promise((resolve) => setTimeout(resolve, 30));
        running -= 1;
      },
      () => {},
    );
    await new Promise((resolve) => setTimeout(resolve, 250));
    stop();
    const seen = ticks;
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(seen).toBeGreaterThanOrEqual(3);
    expect(ticks).toBe(seen);
    expect(overlapped).toBe(false);
  });

  test("SCHEDULE off never runs the dispatcher", async () => {
    let ticks = 0;
    const stop = startLocalSchedule(null, async () => void (ticks += 1), () => {});
    await new Promise((resolve) => setTimeout(resolve, 50));
    stop();
    expect(ticks).toBe(0);
  });
});
