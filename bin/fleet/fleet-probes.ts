import type { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { monitorEventLoopDelay, performance } from "node:perf_hooks";
import type { RateLimiter } from "../../lambdas/domain/core/ports/rate-limiter";
import type { RunStore } from "../../lambdas/domain/core/ports/run-store";
import { sampleMemoryPeaks } from "../bench/memory-peaks";
import type { LocalStepFunctions } from "../../lambdas/runtimes/local/step-functions/local-step-functions";

/** Latency figures of a list of samples (ms). */
export function spread(samples: readonly number[]) {
  if (samples.length === 0) return { n: 0, mean: 0, p50: 0, p95: 0, max: 0 };
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  return { n: sorted.length, mean: sorted.reduce((a, b) => a + b, 0) / sorted.length, p50: at(0.5), p95: at(0.95), max: sorted.at(-1)! };
}

/**
 * Watches the runs from the outside: the run store's begin/finish (a run is
 * "running" from its lock's begin to its finish), so the figures count runs,
 * not executions. Resolves `allFinished` once every begun run has finished.
 */
export function watchRuns(runs: RunStore) {
  const running = new Map<string, Set<string>>();
  let current = 0;
  let maxConcurrent = 0;
  let maxPerConnection = 0;
  let begun = 0;
  const finished = { succeeded: 0, failed: 0 };
  let onChange = () => {};
  const begin = runs.begin.bind(runs);
  const finish = runs.finish.bind(runs);
  runs.begin = async (run, options) => {
    const result = await begin(run, options);
    if (result.started) {
      begun += 1;
      const set = running.get(run.connectionId) ?? new Set<string>();
      set.add(run.runId);
      running.set(run.connectionId, set);
      current += 1;
      maxConcurrent = Math.max(maxConcurrent, current);
      maxPerConnection = Math.max(maxPerConnection, set.size);
    }
    return result;
  };
  runs.finish = async (connectionId, runId, outcome) => {
    await finish(connectionId, runId, outcome);
    const set = running.get(connectionId);
    if (set?.delete(runId) === true) {
      current -= 1;
      finished[outcome.status === "succeeded" ? "succeeded" : "failed"] += 1;
      onChange();
    }
  };
  return {
    get begun() {
      return begun;
    },
    get current() {
      return current;
    },
    get maxConcurrent() {
      return maxConcurrent;
    },
    get maxPerConnection() {
      return maxPerConnection;
    },
    finished,
    /** Resolves once `expected` runs have finished. */
    whenFinished(expected: number): Promise<void> {
      return new Promise((resolve) => {
        onChange = () => {
          if (finished.succeeded + finished.failed >= expected) resolve();
        };
        onChange();
      });
    },
  };
}

/** Every DynamoDB call's latency, by command (SDK retries included). */
export function timeDynamoDb(client: DynamoDBClient) {
  const byCommand = new Map<string, number[]>();
  let errors = 0;
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const started = performance.now();
      try {
        return await next(args);
      } catch (error) {
        errors += 1;
        throw error;
      } finally {
        const name = context.commandName ?? "?";
        const list = byCommand.get(name) ?? [];
        list.push(performance.now() - started);
        byCommand.set(name, list);
      }
    },
    { step: "initialize", name: "fleetTiming" },
  );
  return {
    get errors() {
      return errors;
    },
    all: () => [...byCommand.values()].flat(),
    byCommand: () => [...byCommand.entries()].map(([name, samples]) => ({ name, ...spread(samples) })),
  };
}

/** Time in the limiter's acquire() (waiting for a slot plus its DynamoDB calls). */
export function timeLimiter(limiter: RateLimiter) {
  const samples: number[] = [];
  const acquire = limiter.acquire.bind(limiter);
  limiter.acquire = async (connectionId, rate) => {
    const started = performance.now();
    try {
      return await acquire(connectionId, rate);
    } finally {
      samples.push(performance.now() - started);
    }
  };
  return { samples };
}

/**
 * The engine seen from the main thread: each Task handler's time (task message
 * in, reply out) and the engine's turnaround (one task's reply to the same
 * execution's next task message: the worker's own time plus the message hops).
 */
export function timeEngine(engine: LocalStepFunctions) {
  const handlerMs = new Map<string, number[]>();
  const turnaround: number[] = [];
  const lastReply = new Map<string, number>();
  let inFlight = 0;
  let maxInFlight = 0;
  const target = engine as unknown as { runTask: (worker: unknown, call: { executionId: string; stateName: string }) => Promise<void> };
  const runTask = target.runTask.bind(engine);
  target.runTask = async (worker, call) => {
    const arrived = performance.now();
    const previous = lastReply.get(call.executionId);
    if (previous !== undefined) turnaround.push(arrived - previous);
    inFlight += 1;
    maxInFlight = Math.max(maxInFlight, inFlight);
    try {
      await runTask(worker, call);
    } finally {
      inFlight -= 1;
      const ended = performance.now();
      lastReply.set(call.executionId, ended);
      const list = handlerMs.get(call.stateName) ?? [];
      list.push(ended - arrived);
      handlerMs.set(call.stateName, list);
    }
  };
  return {
    get maxInFlight() {
      return maxInFlight;
    },
    turnaround: () => spread(turnaround),
    handlers: () => [...handlerMs.entries()].map(([name, samples]) => ({ name, ...spread(samples) })),
  };
}

/** Peak memory (sampled) and the main thread's event-loop delay. */
export function watchProcess(sampleMs = 200) {
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  const memory = sampleMemoryPeaks(sampleMs);
  return {
    stop() {
      const { baseline, rssPeak, heapPeak } = memory.stop();
      loop.disable();
      const MB = 1024 * 1024;
      return {
        rssBaselineMb: baseline.rss / MB,
        rssPeakMb: rssPeak / MB,
        heapPeakMb: heapPeak / MB,
        maxRssKernelMb: (process.resourceUsage().maxRSS * 1024) / MB,
        loopDelayP50Ms: loop.percentile(50) / 1e6,
        loopDelayP99Ms: loop.percentile(99) / 1e6,
        loopDelayMaxMs: loop.max / 1e6,
      };
    },
  };
}
