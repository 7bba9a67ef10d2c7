/**
 * One point of the scale measurement: the service side of a sync in a process
 * of its own, so that its memory is the service's alone (the reference source
 * stays in the bench's process and is reached over loopback, as a customer's
 * API would be). Started by ./scale.ts with fork(); the result goes back over
 * the IPC channel. Argument: JSON of ScaleChildInput.
 */
import { performance } from "node:perf_hooks";
import { benchClient, dropTable, freshTable } from "./bench-env";
import { createInstrumentedSync } from "./instrumented-sync";
import { isFullLeadsPage } from "./page-sample";
import { UNBOUND_RATE } from "./page-overhead";
import { sampleMemoryPeaks } from "./memory-peaks";
import { breakdown } from "./page-stats";

export interface ScaleChildInput {
  readonly endpoint: string;
  readonly leads: number;
  /** Syncs of the measured source, each on a new connection (small sources are synced several times for enough pages). */
  readonly rounds: number;
  /** A small source synced first, to warm the process (JIT, connections) before anything is measured. */
  readonly warmUp: { readonly baseUrl: string; readonly token: string };
  readonly source: { readonly baseUrl: string; readonly token: string };
}

export interface ScalePoint {
  readonly leads: number;
  readonly rounds: number;
  readonly status: string;
  readonly fullLeadPages: number;
  readonly overheadMedianMs: number;
  readonly overheadP95Ms: number;
  readonly taskMedianMs: number;
  /** Mean wall time of one sync. */
  readonly wallS: number;
  /** After the warm-up sync and a GC, right before the measured sync. */
  readonly rssBaselineMb: number;
  readonly heapBaselineMb: number;
  /** Largest 50 ms sample during the sync. */
  readonly rssPeakMb: number;
  readonly heapPeakMb: number;
  /** After the sync and a GC: what the sync left behind. */
  readonly rssAfterMb: number;
  readonly heapAfterMb: number;
  /** The kernel's high-water mark for the whole process (getrusage maxrss), warm-up included. */
  readonly maxRssMb: number;
}

process.env["AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED"] = "true";
const MB = 1024 * 1024;

async function main(): Promise<ScalePoint> {
  const input = JSON.parse(process.argv[2] ?? "null") as ScaleChildInput | null;
  if (input === null) throw new Error("usage: scale-child <json of ScaleChildInput>");
  const { endpoint, leads } = input;
  const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});
  const client = benchClient(endpoint);
  const tableName = await freshTable(client, `scale-${leads}`);
  const sync = createInstrumentedSync({ endpoint, tableName });
  try {
    const warm = await sync.syncWithStateMachine(await sync.addConnection({ ...input.warmUp, rateLimit: UNBOUND_RATE }), 250);
    if (warm.summary.status !== "succeeded") throw new Error(`the warm-up run ${warm.summary.status}`);

    gc();
    const memory = sampleMemoryPeaks(50);
    const started = performance.now();
    const runs = [];
    let peaks;
    try {
      for (let round = 0; round < input.rounds; round += 1) {
        const connection = await sync.addConnection({ ...input.source, rateLimit: UNBOUND_RATE });
        runs.push(await sync.syncWithStateMachine(connection, 250));
      }
    } finally {
      peaks = memory.stop();
    }
    const { baseline, rssPeak, heapPeak } = peaks;
    const wallS = (performance.now() - started) / 1000 / input.rounds;
    gc();
    const after = process.memoryUsage();
    const pages = breakdown(runs.flatMap((run) => run.pages.filter(isFullLeadsPage)));
    const failed = runs.find((run) => run.summary.status !== "succeeded");
    return {
      leads,
      rounds: input.rounds,
      status: failed?.summary.status ?? "succeeded",
      fullLeadPages: pages.pages,
      overheadMedianMs: pages.overheadMs,
      overheadP95Ms: pages.overheadP95Ms,
      taskMedianMs: pages.handlerMs,
      wallS,
      rssBaselineMb: baseline.rss / MB,
      heapBaselineMb: baseline.heapUsed / MB,
      rssPeakMb: rssPeak / MB,
      heapPeakMb: heapPeak / MB,
      rssAfterMb: after.rss / MB,
      heapAfterMb: after.heapUsed / MB,
      // maxRSS is in kilobytes.
      maxRssMb: (process.resourceUsage().maxRSS * 1024) / MB,
    };
  } finally {
    await sync.close();
    await dropTable(client, tableName);
    client.destroy();
  }
}

main().then(
  (point) => {
    process.send?.(point, () => process.exit(0));
  },
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
