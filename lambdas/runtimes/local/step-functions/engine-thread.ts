import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import type { WorkerData } from "./protocol";

/**
 * Starts the worker thread that runs aws-local-stepfunctions (engine-worker.ts).
 * As TypeScript (tsx, vitest): an eval'd CommonJS bootstrap that registers
 * tsx's CommonJS hook in the worker and requires engine-worker.ts.
 * `execArgv: ["--import", "tsx"]` does not work on Node 20: ESM loader hooks
 * are not applied to a worker's own modules ("Unknown file extension .ts"),
 * and neither is `tsx/esm/api`'s register() called inside the worker.
 * If this module has been compiled/bundled to `.js`, engine-worker.js next to
 * it is loaded as is.
 */
export function startEngineThread(workerData: WorkerData): Worker {
  const self = import.meta.url;
  if (/\.[cm]?ts$/.test(new URL(self).pathname)) {
    const tsxCjsApi = createRequire(self).resolve("tsx/cjs/api");
    const worker = fileURLToPath(new URL("./engine-worker.ts", self));
    return new Worker(`require(${JSON.stringify(tsxCjsApi)}).register();\nrequire(${JSON.stringify(worker)});\n`, { eval: true, workerData });
  }
  return new Worker(new URL("./engine-worker.js", self), { workerData });
}
