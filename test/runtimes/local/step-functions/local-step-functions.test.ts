import { setImmediate as nextTurn } from "node:timers/promises";
import { isMainThread } from "node:worker_threads";
import { afterEach, describe, expect, it } from "vitest";
import {
  LocalStepFunctions,
  type LocalStepFunctionsOptions,
  type TaskHandler,
} from "../../../../lambdas/runtimes/local/step-functions/local-step-functions";
import { validateDefinition } from "../../../../lambdas/runtimes/local/step-functions/validate-definition";

/** Sample definitions only: the real statemachine/sync.asl.json is tested elsewhere. */

const lambdaArn = (name: string) => `arn:aws:lambda:us-east-1:123456789012:function:${name}`;

function namedError(name: string, message: string): Error {
  const error = new Error(message);
  error.name = name;
  return error;
}

/** This thread's setTimeout as the test file found it. */
const mainThreadSetTimeout = globalThis.setTimeout;

/** The engine's waits for an execution (its deadlines left out). */
function waits(sfn: LocalStepFunctions, id: string) {
  return sfn.timers(id).filter((timer) => timer.kind === "wait").map(({ seq: _seq, ...timer }) => timer);
}

const machines: LocalStepFunctions[] = [];
function machine(options: LocalStepFunctionsOptions): LocalStepFunctions {
  const created = new LocalStepFunctions(options);
  machines.push(created);
  return created;
}

afterEach(async () => {
  await Promise.all(machines.splice(0).map((created) => created.stop()));
});

/** A definition of one Task state `name` that ends the execution, with the state's other fields. */
function oneTask(name: string, fields: Record<string, unknown> = {}) {
  return { StartAt: name, States: { [name]: { Type: "Task", Resource: lambdaArn(name), ...fields, End: true } } };
}

describe("LocalStepFunctions", () => {
  it("runs a Task -> Choice -> Task loop with the handlers on the main thread", async () => {
    const threads: boolean[] = [];
    const sfn = machine({
      definition: {
        StartAt: "Count",
        States: {
          Count: { Type: "Task", Resource: "${CountArn}", Next: "More" },
          More: {
            Type: "Choice",
            Choices: [{ Variable: "$.count", NumericLessThan: 3, Next: "Count" }],
            Default: "Done",
          },
          Done: { Type: "Task", Resource: "${DoneArn}", End: true },
        },
      },
      handlers: {
        Count: async (input) => {
          threads.push(isMainThread);
          const { count = 0 } = input as { count?: number };
          return { count: count + 1 };
        },
        Done: async (input) => ({ total: (input as { count: number }).count }),
      },
    });

    const id = await sfn.start({});
    expect(id).toMatch(/^local:[0-9a-f-]{36}$/);
    await expect(sfn.result(id)).resolves.toEqual({ status: "SUCCEEDED", output: { total: 3 } });
    expect(threads).toEqual([true, true, true]);
    expect(await sfn.isRunning(id)).toBe(false);
  });

  it("scales Retry backoff and matches ErrorEquals by the error's name", async () => {
    let attempts = 0;
    const sfn = machine({
      timeScale: 0.01,
      definition: oneTask("Fetch", {
        Retry: [
          // Must not match: it would wait 0.5 s even when scaled.
          { ErrorEquals: ["SourceAuthError"], IntervalSeconds: 50, MaxAttempts: 3 },
          { ErrorEquals: ["SourceTransientError"], IntervalSeconds: 1, BackoffRate: 2, MaxAttempts: 3, JitterStrategy: "NONE" },
        ],
      }),
      handlers: {
        Fetch: async () => {
          attempts += 1;
          if (attempts <= 3) throw namedError("SourceTransientError", `attempt ${attempts}`);
          return { ok: true };
        },
      },
    });

    const id = await sfn.start({});
    await expect(sfn.result(id)).resolves.toEqual({ status: "SUCCEEDED", output: { ok: true } });
    expect(attempts).toBe(4);
    // The pauses the definition asked for (1, 2, 4 s: not the 50 s of the retrier that must not match),
    // each set to 1/100 of it: read from the engine's timers, not measured.
    expect(waits(sfn, id)).toEqual([
      { kind: "wait", requestedMs: 1_000, scaledMs: 10 },
      { kind: "wait", requestedMs: 2_000, scaledMs: 20 },
      { kind: "wait", requestedMs: 4_000, scaledMs: 40 },
    ]);

    const retried = sfn.events(id).filter((event) => event.type === "StateRetried");
    expect(retried.map((event) => (event.type === "StateRetried" ? event.retry.attempt : 0))).toEqual([1, 2, 3]);
  });

  it("fails with the handler's error once the retries are exhausted", async () => {
    const sfn = machine({
      timeScale: 0.01,
      definition: oneTask("Fetch", {
        Retry: [{ ErrorEquals: ["SourceTransientError"], IntervalSeconds: 1, MaxAttempts: 2 }],
      }),
      handlers: {
        Fetch: async () => {
          throw namedError("SourceTransientError", "503 from the source");
        },
      },
    });

    const result = await sfn.result(await sfn.start({}));
    expect(result.status).toBe("FAILED");
    expect(result.error).toBe("SourceTransientError");
    expect(JSON.parse(result.cause!)).toEqual({ errorType: "SourceTransientError", errorMessage: "503 from the source", trace: [] });
  });

  it("scales a Wait state's SecondsPath", async () => {
    const sfn = machine({
      timeScale: 0.01,
      definition: {
        StartAt: "Pause",
        States: { Pause: { Type: "Wait", SecondsPath: "$.seconds", End: true } },
      },
      handlers: {},
    });

    const id = await sfn.start({ seconds: 2 });
    await expect(sfn.result(id)).resolves.toEqual({ status: "SUCCEEDED", output: { seconds: 2 } });
    expect(sfn.timers(id).map(({ seq: _seq, ...timer }) => timer)).toEqual([{ kind: "wait", requestedMs: 2_000, scaledMs: 20 }]);
  });

  it("gives a Catch the Lambda-style { Error, Cause } at its ResultPath", async () => {
    let recovered: unknown;
    const sfn = machine({
      definition: {
        StartAt: "Fetch",
        States: {
          Fetch: {
            Type: "Task",
            Resource: lambdaArn("Fetch"),
            Catch: [{ ErrorEquals: ["SourceAuthError"], ResultPath: "$.error", Next: "Stop" }],
            End: true,
          },
          Stop: { Type: "Task", Resource: lambdaArn("Stop"), End: true },
        },
      },
      handlers: {
        Fetch: async () => {
          throw namedError("SourceAuthError", "401 from the source");
        },
        Stop: async (input) => {
          recovered = input;
          return "stopped";
        },
      },
    });

    await expect(sfn.result(await sfn.start({ entity: "leads" }))).resolves.toEqual({ status: "SUCCEEDED", output: "stopped" });
    const { entity, error } = recovered as { entity: string; error: { Error: string; Cause: string } };
    expect(entity).toBe("leads");
    expect(error.Error).toBe("SourceAuthError");
    expect(JSON.parse(error.Cause)).toEqual({ errorType: "SourceAuthError", errorMessage: "401 from the source", trace: [] });
  });

  it("never scales the main thread's timers, nor a Task's TimeoutSeconds", async () => {
    let handlerTimer: typeof setTimeout | undefined;
    const sfn = machine({
      timeScale: 0.01,
      definition: {
        StartAt: "Slow",
        // Scaled, TimeoutSeconds 1 would be 10 ms and time the 50 ms handler out.
        States: { Slow: { Type: "Task", Resource: lambdaArn("Slow"), TimeoutSeconds: 1, End: true } },
      },
      handlers: {
        Slow: async () => {
          handlerTimer = globalThis.setTimeout;
          return "slow";
        },
      },
    });

    const id = await sfn.start({});
    await expect(sfn.result(id)).resolves.toEqual({ status: "SUCCEEDED", output: "slow" });
    // The handler ran with this thread's own setTimeout (only the worker's is replaced)...
    expect(handlerTimer).toBe(mainThreadSetTimeout);
    // ...and the Task's deadline was set to the full 1 s, where a wait would have been scaled to 10 ms.
    expect(sfn.timers(id).map(({ seq: _seq, ...timer }) => timer)).toEqual([{ kind: "deadline", requestedMs: 1_000, scaledMs: 1_000 }]);
  });

  it("aborts an execution between two tasks; settled() waits for the handler that was running", async () => {
    let releaseFirst!: () => void;
    const firstReleased = new Promise<void>((resolve) => (releaseFirst = resolve));
    let firstCalled!: () => void;
    const firstStarted = new Promise<void>((resolve) => (firstCalled = resolve));
    let secondCalls = 0;
    let barrierCalls = 0;
    const sfn = machine({
      definition: {
        StartAt: "First",
        States: {
          First: { Type: "Task", Resource: lambdaArn("First"), Next: "Second" },
          Second: { Type: "Task", Resource: lambdaArn("Second"), End: true },
        },
      },
      handlers: {
        First: async (input) => {
          if ((input as { barrier?: boolean }).barrier) return input;
          firstCalled();
          await firstReleased;
          return {};
        },
        Second: async (input) => {
          if ((input as { barrier?: boolean }).barrier) barrierCalls++;
          else secondCalls++;
          return {};
        },
      },
    });

    const id = await sfn.start({});
    await firstStarted;
    expect(await sfn.isRunning(id)).toBe(true);
    let settled = false;
    const settling = sfn.settled(id).then(() => void (settled = true));
    await sfn.abort(id);
    expect(await sfn.isRunning(id)).toBe(false);
    await expect(sfn.result(id)).resolves.toEqual({ status: "ABORTED" });
    // Ended, but its handler still runs: settled() waits for it.
    expect(settled).toBe(false);
    releaseFirst();
    await settling;
    // Let the first handler's reply go out, then run a whole execution behind it: the worker handles
    // messages in order, so by the time that one has ended, a Second call of the aborted one would have come.
    await nextTurn();
    await expect(sfn.result(await sfn.start({ barrier: true }))).resolves.toMatchObject({ status: "SUCCEEDED" });
    expect(barrierCalls).toBe(1);
    expect(secondCalls).toBe(0);
    expect(sfn.events(id).at(-1)?.type).toBe("ExecutionAborted");
  });

  it("lets a handler start executions re-entrantly (ContinueAsNew)", async () => {
    const seen: { generation: number; executionId: string; fromContext: string }[] = [];
    const children: string[] = [];
    let sfn!: LocalStepFunctions;
    const work: TaskHandler = async (input, context) => {
      const { generation, execution_id } = input as { generation: number; execution_id: string };
      seen.push({ generation, executionId: execution_id, fromContext: context.executionId });
      return { generation };
    };
    const continueAsNew: TaskHandler = async (input) => {
      const { generation } = input as { generation: number };
      if (generation >= 2) return { continued: null };
      const child = await sfn.start({ generation: generation + 1 });
      children.push(child);
      return { continued: child };
    };
    sfn = machine({
      substitutions: { WorkArn: lambdaArn("Work") },
      definition: {
        StartAt: "Work",
        States: {
          Work: {
            Type: "Task",
            Resource: "${WorkArn}",
            Parameters: { "generation.$": "$.generation", "execution_id.$": "$$.Execution.Id" },
            Next: "ContinueAsNew",
          },
          ContinueAsNew: { Type: "Task", Resource: "arn:aws:states:::states:startExecution", End: true },
        },
      },
      handlers: { Work: work, ContinueAsNew: continueAsNew },
    });

    const first = await sfn.start({ generation: 0 });
    const firstResult = await sfn.result(first);
    expect(firstResult).toEqual({ status: "SUCCEEDED", output: { continued: children[0] } });
    const secondResult = await sfn.result(children[0]!);
    expect(secondResult).toEqual({ status: "SUCCEEDED", output: { continued: children[1] } });
    await expect(sfn.result(children[1]!)).resolves.toEqual({ status: "SUCCEEDED", output: { continued: null } });
    expect(children).toHaveLength(2);
    expect(seen.map(({ generation }) => generation)).toEqual([0, 1, 2]);
    expect(seen.map(({ executionId }) => executionId)).toEqual([first, ...children]);
    expect(seen.every(({ executionId, fromContext }) => executionId === fromContext)).toBe(true);
  });

  it("keeps the event log after completion", async () => {
    const sfn = machine({
      definition: {
        StartAt: "Prepare",
        States: {
          Prepare: { Type: "Pass", Result: { n: 1 }, Next: "Run" },
          Run: { Type: "Task", Resource: lambdaArn("Run"), End: true },
        },
      },
      handlers: { Run: async () => "ran" },
    });

    const id = await sfn.start({});
    await sfn.result(id);
    const events = sfn.events(id);
    expect(events.map((event) => event.type)).toEqual([
      "ExecutionStarted",
      "StateEntered",
      "StateExited",
      "StateEntered",
      "StateExited",
      "ExecutionSucceeded",
    ]);
    expect(events.map((event) => event.id)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(events.every((event) => event.executionId === id && typeof event.timestamp === "number")).toBe(true);
    const ranExit = events[4]!;
    expect(ranExit.type === "StateExited" && ranExit.state).toEqual({ name: "Run", type: "Task", input: { n: 1 }, output: "ran" });
  });

  it("reports a Fail state's Error and Cause", async () => {
    const sfn = machine({
      definition: { StartAt: "Boom", States: { Boom: { Type: "Fail", Error: "SyncRunFailed", Cause: "a required entity failed" } } },
      handlers: {},
    });
    await expect(sfn.result(await sfn.start({}))).resolves.toEqual({
      status: "FAILED",
      error: "SyncRunFailed",
      cause: "a required entity failed",
    });
  });

  it("applies substitutions, and gives unresolved placeholders a dummy Lambda ARN", () => {
    const sfn = machine({
      substitutions: { AArn: lambdaArn("A") },
      definition: {
        StartAt: "A",
        States: {
          A: { Type: "Task", Resource: "${AArn}", Next: "B" },
          B: { Type: "Task", Resource: "${PageTaskArn}", End: true },
        },
      },
      handlers: { A: async () => null, B: async () => null },
    });
    const states = (sfn.definition as { States: Record<string, { Resource: string }> }).States;
    expect(states["A"]!.Resource).toBe(lambdaArn("A"));
    expect(states["B"]!.Resource).toBe("arn:aws:lambda:us-east-1:000000000000:function:PageTaskArn");
  });

  it("refuses a Task state without a handler, and an invalid definition", () => {
    const definition = { StartAt: "A", States: { A: { Type: "Task", Resource: lambdaArn("A"), End: true } } };
    expect(() => new LocalStepFunctions({ definition, handlers: {} })).toThrow(/No local handler for Task state\(s\): A/);
    expect(
      () => new LocalStepFunctions({ definition: { StartAt: "A", States: { A: { Type: "Pass", Next: "Nowhere" } } }, handlers: {} }),
    ).toThrow(/Invalid state machine definition/);
  });

  it("stop() aborts what runs and refuses new executions", async () => {
    const sfn = machine({
      definition: { StartAt: "Pause", States: { Pause: { Type: "Wait", Seconds: 60, End: true } } },
      handlers: {},
    });
    const id = await sfn.start({});
    await sfn.stop();
    await expect(sfn.result(id)).resolves.toEqual({ status: "ABORTED" });
    await expect(sfn.start({})).rejects.toThrow(/stopped/);
  });
});

describe("validateDefinition", () => {
  it("accepts a valid definition, ${...} Resource placeholders included", () => {
    const definition = {
      StartAt: "Fetch",
      States: {
        Fetch: { Type: "Task", Resource: "${PageTaskArn}", Next: "Wait" },
        Wait: { Type: "Wait", SecondsPath: "$.seconds", Next: "Done" },
        Done: { Type: "Succeed" },
      },
    };
    expect(validateDefinition(definition)).toEqual({ valid: true, errors: [] });
    // The validator adds QueryLanguage to every state: only to its own copy.
    expect(definition.States.Fetch).not.toHaveProperty("QueryLanguage");
  });

  it("a named start behaves as Standard's StartExecution: same name and input while running is the same execution; once ended, or with another input, ExecutionAlreadyExists", async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const sfn = machine({
      definition: { StartAt: "Hold", States: { Hold: { Type: "Task", Resource: "${HoldArn}", End: true } } },
      handlers: { Hold: async () => held },
    });
    const id = await sfn.start({ n: 1 }, { name: "run-1-c1" });
    expect(id).toBe("local:run-1-c1");
    expect(await sfn.start({ n: 1 }, { name: "run-1-c1" })).toBe(id);
    expect(sfn.list()).toHaveLength(1);
    await expect(sfn.start({ n: 2 }, { name: "run-1-c1" })).rejects.toMatchObject({ name: "StepFunctions.ExecutionAlreadyExistsException" });
    release();
    await sfn.result(id);
    await expect(sfn.start({ n: 1 }, { name: "run-1-c1" })).rejects.toMatchObject({ name: "StepFunctions.ExecutionAlreadyExistsException" });
    expect(sfn.list()).toHaveLength(1);
  });

  it("rejects an invalid definition with its errors", () => {
    const result = validateDefinition({
      StartAt: "A",
      States: { A: { Type: "Pass", Next: "Nowhere" }, B: { Type: "Task", Resource: "not-an-arn", End: true } },
    });
    expect(result.valid).toBe(false);
    expect(result.errors.length).toBeGreaterThan(0);
    expect(result.errors.join("\n")).toMatch(/Resource|Nowhere/);
    expect(validateDefinition(null)).toEqual({ valid: false, errors: ["The definition must be a JSON object"] });
  });
});
