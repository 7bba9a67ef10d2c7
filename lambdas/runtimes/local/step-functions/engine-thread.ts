import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";

/**
 * The worker threads that run aws-local-stepfunctions (engine-worker.ts), kept
 * for the next engine once one stops: starting a thread loads the engine and
 * its dependencies, about 0.6 s of CPU, and a process (a test worker above
 * all) builds and stops engines by the dozen. A thread is handed back only
 * when every execution of its owner has ended; its next owner sends `load`
 * with its own definition first.
 */
const idle: Worker[] = [];
/** Idle threads kept at most; a process runs a handful of engines at once. */
const IDLE_THREADS_KEPT = 4;

export function acquireEngineThread(): Worker {
  return idle.pop() ?? startEngineThread();
}

/** Takes back a thread whose owner stopped cleanly (no execution left); past IDLE_THREADS_KEPT it is terminated. */
export async function releaseEngineThread(worker: Worker): Promise<void> {
  worker.removeAllListeners("message");
  worker.removeAllListeners("error");
  worker.removeAllListeners("exit");
  worker.unref();
  if (idle.length >= IDLE_THREADS_KEPT) {
    await worker.terminate();
    return;
  }
  // A kept thread that dies while idle leaves the pool.
  worker.once("exit", () => {
    const at = idle.indexOf(worker);
    if (at >= 0) idle.splice(at, 1);
  });
  worker.on("error", () => {});
  idle.push(worker);
}

/**
 * As TypeScript (tsx, vitest): an eval'd CommonJS bootstrap that registers
 * tsx's CommonJS hook in the worker and requires engine-worker.ts.
 * `execArgv: ["--import", "tsx"]` does not work on Node 20: ESM loader hooks
 * are not applied to a worker's own modules ("Unknown file extension .ts"),
 * and neither is `tsx/esm/api`'s register() called inside the worker.
 * If this module has been compiled/bundled to `.js`, engine-worker.js next to
 * it is loaded as is.
 */
function startEngineThread(): Worker {
  const self = import.meta.url;
  if (/\.[cm]?ts$/.test(new URL(self).pathname)) {
    const tsxCjsApi = createRequire(self).resolve("tsx/cjs/api");
    const worker = fileURLToPath(new URL("./engine-worker.ts", self));
    return new Worker(`require(${JSON.stringify(tsxCjsApi)}).register();\nrequire(${JSON.stringify(worker)});\n`, { eval: true });
  }
  return new Worker(new URL("./engine-worker.js", self));
}

/** How many threads wait for their next engine (for tests). */
export function idleEngineThreads(): number {
  return idle.length;
}
