import { describe, expect, it } from "vitest";
import { idleEngineThreads } from "../../../../lambdas/runtimes/local/step-functions/engine-thread";
import { LocalStepFunctions } from "../../../../lambdas/runtimes/local/step-functions/local-step-functions";
import { gate } from "../../../support/gate";

const lambdaArn = (name: string) => `arn:aws:lambda:us-east-1:123456789012:function:${name}`;

describe("engine threads are handed on", () => {
  it("a thread handed on runs its next engine's own definition and time scale", async () => {
    const first = new LocalStepFunctions({
      definition: { StartAt: "First", States: { First: { Type: "Task", Resource: lambdaArn("First"), End: true } } },
      handlers: { First: async () => ({ from: "first" }) },
      timeScale: 1,
    });
    expect((await first.result(await first.start({}))).output).toEqual({ from: "first" });
    const idleBefore = idleEngineThreads();
    await first.stop();
    expect(idleEngineThreads()).toBe(Math.min(idleBefore + 1, 4));

    const second = new LocalStepFunctions({
      definition: {
        StartAt: "Hold",
        States: {
          Hold: { Type: "Wait", Seconds: 100, Next: "Second" },
          Second: { Type: "Task", Resource: lambdaArn("Second"), End: true },
        },
      },
      handlers: { Second: async (input: unknown) => ({ from: "second", input }) },
      timeScale: 0.001,
    });
    try {
      const id = await second.start({ n: 2 });
      // The thread the first engine left is the one this engine took.
      expect(idleEngineThreads()).toBe(Math.min(idleBefore + 1, 4) - 1);
      expect((await second.result(id)).output).toEqual({ from: "second", input: { n: 2 } });
      expect(second.timers(id).filter((timer) => timer.kind === "wait").map(({ requestedMs, scaledMs }) => ({ requestedMs, scaledMs }))).toEqual([
        { requestedMs: 100_000, scaledMs: 100 },
      ]);
    } finally {
      await second.stop();
    }
  });

  it("an engine stopped while a handler still runs terminates its thread instead of handing it on", async () => {
    const entered = gate();
    const release = gate();
    const busy = new LocalStepFunctions({
      definition: { StartAt: "Slow", States: { Slow: { Type: "Task", Resource: lambdaArn("Slow"), End: true } } },
      handlers: {
        Slow: async () => {
          entered.open();
          await release.opened;
          return {};
        },
      },
    });
    await busy.start({});
    await entered.opened;
    const idleBefore = idleEngineThreads();
    await busy.stop();
    expect(idleEngineThreads()).toBe(idleBefore);
    release.open();
  });
});
