import * as v from "valibot";
import { describe, expect, test } from "vitest";
import { scheduleLabel, startLocalSchedule, type ScheduleTimer } from "../../../lambdas/runtimes/local/local-schedule";
import { ScheduleSchema } from "../../../lambdas/domain/sync/schedule-interval";

describe("SCHEDULE", () => {
  test("the local schedule runs the dispatcher on a timer, one tick at a time, until stopped", async () => {
    const timer = manualTimer();
    const ticks = gatedTicks();
    const errors: unknown[] = [];
    const stop = startLocalSchedule(20_000, ticks.tick, (error) => errors.push(error), timer);
    expect(timer.armed).toEqual([20_000]);
    expect(ticks.started).toBe(0);

    for (let round = 1; round <= 3; round += 1) {
      const firing = timer.fire();
      expect(ticks.started).toBe(round);
      // While a tick runs no timer is armed: the next tick cannot start before this one ends.
      expect(timer.pending).toBe(0);
      ticks.finish();
      await firing;
      expect(timer.pending).toBe(1);
      expect(timer.armed).toHaveLength(round + 1);
    }

    // A failing tick is reported and the schedule goes on.
    const failing = timer.fire();
    ticks.fail(new Error("dispatch failed"));
    await failing;
    expect(errors).toEqual([new Error("dispatch failed")]);
    expect(timer.pending).toBe(1);

    // Stopped while a tick runs: that tick finishes, and no timer is armed after it.
    const last = timer.fire();
    stop();
    ticks.finish();
    await last;
    expect(timer.pending).toBe(0);
    expect(ticks.started).toBe(5);
    expect(timer.armed.every((ms) => ms === 20_000)).toBe(true);
  });

  test("stopping the local schedule between ticks disarms its timer", () => {
    const timer = manualTimer();
    const stop = startLocalSchedule(30_000, async () => {}, () => {}, timer);
    expect(timer.pending).toBe(1);
    stop();
    expect(timer.pending).toBe(0);
  });

  test("SCHEDULE off never runs the dispatcher", () => {
    const timer = manualTimer();
    let ticks = 0;
    const stop = startLocalSchedule(null, async () => void (ticks += 1), () => {}, timer);
    stop();
    expect(timer.armed).toEqual([]);
    expect(ticks).toBe(0);
  });
});

/** A ScheduleTimer the test fires by hand: time passes only when the test says so. */
function manualTimer() {
  const pending = new Map<number, () => unknown>();
  const armed: number[] = [];
  let nextId = 1;
  const timer: ScheduleTimer & { armed: number[]; readonly pending: number; fire(): Promise<unknown> } = {
    armed,
    get pending() {
      return pending.size;
    },
    set(callback, ms) {
      const id = nextId++;
      pending.set(id, callback);
      armed.push(ms);
      return id;
    },
    clear(handle) {
      pending.delete(handle as number);
    },
    /** Fires the one armed timer; resolves when its callback (tick and re-arming) has finished. */
    fire() {
      const [id, callback] = [...pending.entries()][0] ?? [];
      if (id === undefined || callback === undefined) throw new Error("no timer armed");
      pending.delete(id);
      return Promise.resolve(callback());
    },
  };
  return timer;
}

/** A dispatcher whose ticks end when the test says so. */
function gatedTicks() {
  let started = 0;
  let settle: { resolve: () => void; reject: (error: unknown) => void } | undefined;
  return {
    get started() {
      return started;
    },
    tick: () =>
      new Promise<void>((resolve, reject) => {
        started += 1;
        settle = { resolve, reject };
      }),
    finish: () => settle?.resolve(),
    fail: (error: unknown) => settle?.reject(error),
  };
}

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
