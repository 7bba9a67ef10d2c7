import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import { startReferenceSource } from "../reference-source/start-reference-source";
import { bySize, type BenchContext, type MeasurementResult } from "./bench-env";
import { TINY_OTHERS } from "./page-overhead";
import type { ScaleChildInput, ScalePoint } from "./scale-child";
import { slope } from "./stats";
import { num, type Table } from "./table";

const CHILD = fileURLToPath(new URL("./scale-child.ts", import.meta.url));
/** "Flat": the largest point within ±20% of the smallest. */
const FLAT_WITHIN = 0.2;
/** Leads of the warm-up sync each service process runs before the measured one. */
const WARM_UP_LEADS = 3_000;
/** Full leads pages wanted per point: a small source is synced again (new connection) until there are this many. */
const MIN_PAGES = 90;

/**
 * 3. Scale: the overhead per leads page and the service process's peak
 * memory at growing lead counts (other entities tiny). Each point's service
 * runs in a fresh process (./scale-child.ts), so one point's memory never
 * carries into the next; the reference source stays in this process.
 */
export async function measureScale(context: BenchContext): Promise<MeasurementResult> {
  // Smoke: one point, whose trend reads n/a (smoke figures mean nothing; a second point costs a process start).
  const sizes = bySize(context, { full: [1_000, 10_000, 100_000], quick: [1_000, 10_000], smoke: [200] });
  const warmUpLeads = bySize(context, { full: WARM_UP_LEADS, quick: WARM_UP_LEADS, smoke: 100 });
  const minPages = bySize(context, { full: MIN_PAGES, quick: MIN_PAGES, smoke: 1 });
  const points: ScalePoint[] = [];
  for (const leads of sizes) {
    context.progress(`scale: ${leads} leads (service in its own process)`);
    const warmUp = await startReferenceSource({ seed: 7, sizes: { ...TINY_OTHERS, leads: warmUpLeads }, recordRequests: false });
    const source = await startReferenceSource({ sizes: { ...TINY_OTHERS, leads }, recordRequests: false });
    try {
      points.push(
        await runPoint({
          endpoint: context.endpoint,
          leads,
          // A sync of N leads has N/100 - 1 full pages that are not the entity's last.
          rounds: Math.max(1, Math.ceil(minPages / (leads / 100 - 1))),
          warmUp: { baseUrl: warmUp.url, token: warmUp.token },
          source: { baseUrl: source.url, token: source.token },
        }),
      );
    } finally {
      await warmUp.close();
      await source.close();
    }
  }

  const decades = points.map((point) => Math.log10(point.leads));
  const first = points[0]!;
  const last = points.at(-1)!;
  const trend = (name: string, unit: string, pick: (point: ScalePoint) => number, decimals: number): (string | number)[] => {
    const perDecade = slope(decades, points.map(pick));
    const ratio = pick(last) / pick(first);
    const usable = Number.isFinite(ratio) && pick(first) > 0;
    const flat = usable && Math.abs(ratio - 1) <= FLAT_WITHIN;
    return [name, `${perDecade >= 0 ? "+" : ""}${num(perDecade, decimals)} ${unit}`, usable ? `${num(ratio, 2)}x` : "n/a", flat ? "flat" : "NOT flat"];
  };
  const ratioLabel = `${last.leads / 1000}k / ${first.leads / 1000}k`;

  const tables: Table[] = [
    {
      title: "3. Scale: leads at rate_limit 1000, other entities tiny; the service in a fresh process per point",
      columns: [
        "leads",
        "syncs",
        "full leads pages",
        "median overhead (ms/page)",
        "p95 overhead (ms/page)",
        "median page task (ms)",
        "wall per sync (s)",
        "RSS baseline (MB)",
        "peak RSS (MB)",
        "RSS after, GC'd (MB)",
        "heapUsed baseline (MB)",
        "peak heapUsed (MB)",
        "heapUsed after, GC'd (MB)",
        "maxRSS, kernel (MB)",
        "run",
      ],
      rows: points.map((point) => [
        point.leads.toLocaleString("en-US"),
        point.rounds,
        point.fullLeadPages,
        num(point.overheadMedianMs, 1),
        num(point.overheadP95Ms, 1),
        num(point.taskMedianMs, 1),
        num(point.wallS, 1),
        num(point.rssBaselineMb, 0),
        num(point.rssPeakMb, 0),
        num(point.rssAfterMb, 0),
        num(point.heapBaselineMb, 0),
        num(point.heapPeakMb, 0),
        num(point.heapAfterMb, 0),
        num(point.maxRssMb, 0),
        point.status,
      ]),
      notes: [
        "overhead = SyncPage task time - fetchPage time, full leads pages only (as in 2).",
        `The service side (createLocalSync's stores and engine, timed as in 2) runs in a fresh Node process per point (fork, --expose-gc); it first syncs a ${warmUpLeads.toLocaleString("en-US")}-lead warm-up source, then the measured source on a new connection (again on another new connection until ${minPages} full pages are measured: 1,000 leads give only 9 per sync). Both sources run in the bench's own process, so their data is not in the measured process.`,
        "Memory of the measured process (main thread heap; RSS includes the engine's worker thread): baseline after a GC right before the measured syncs; peak = largest sample every 50 ms during them; after = after them and a GC; maxRSS = the kernel's high-water mark (getrusage), warm-up included.",
      ],
    },
    {
      title: `3b. Scale trend (least-squares slope per decade of leads; ratio ${ratioLabel}; flat = ratio within ±${FLAT_WITHIN * 100}%)`,
      columns: ["figure", "slope per decade", `ratio ${ratioLabel}`, "verdict"],
      rows: [
        trend("median overhead per leads page", "ms", (point) => point.overheadMedianMs, 1),
        trend("p95 overhead per leads page", "ms", (point) => point.overheadP95Ms, 1),
        trend("peak RSS", "MB", (point) => point.rssPeakMb, 0),
        trend("peak heapUsed", "MB", (point) => point.heapPeakMb, 0),
        trend("heapUsed after the sync, GC'd (retained)", "MB", (point) => point.heapAfterMb, 1),
      ],
    },
  ];
  return { tables };
}

function runPoint(input: ScaleChildInput): Promise<ScalePoint> {
  return new Promise((resolve, reject) => {
    const child = fork(CHILD, [JSON.stringify(input)], {
      // tsx's loader by name, not the parent's execArgv: the parent may be the bench under tsx or a test under vitest.
      execArgv: ["--import", "tsx", "--expose-gc"],
      stdio: ["ignore", "ignore", "pipe", "ipc"],
    });
    let stderr = "";
    let result: ScalePoint | undefined;
    child.stderr?.on("data", (chunk: Buffer) => (stderr = (stderr + chunk.toString("utf8")).slice(-4000)));
    child.on("message", (message) => (result = message as ScalePoint));
    child.once("error", reject);
    child.once("exit", (code) => {
      if (code === 0 && result !== undefined) resolve(result);
      else reject(new Error(`scale point ${input.leads} exited with ${code}: ${stderr}`));
    });
  });
}
