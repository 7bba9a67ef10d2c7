/** `npm run bench -- [--quick | --smoke] [--only <name>[,<name>...]] [--rates ...] [--runs N]`; also BENCH_QUICK=1 and BENCH_ONLY=<names>. */

export const MEASUREMENTS = ["rate", "overhead", "scale", "orchestration", "product", "latency", "validation", "limiter", "analytics", "audit"] as const;
export type MeasurementName = (typeof MEASUREMENTS)[number];

/**
 * How big each measurement runs: full (the figures), quick (a fast check),
 * smoke (the smallest sizes that still run every step: a test runs each
 * measurement so, and its figures mean nothing).
 */
export type BenchSize = "full" | "quick" | "smoke";

export interface BenchOptions {
  readonly size: BenchSize;
  readonly only: readonly MeasurementName[];
  /** The rate-bound measurement's rate_limits (default: 5, 20, 50, 100; quick: 5, 20). */
  readonly rates?: readonly number[];
  /** The latency measurement's source latencies in ms (default: 50, 200, 500). */
  readonly latencies?: readonly number[];
  /** How many times each measurement runs; above 1, its tables are also summed up as medians with their spread (runs-summary.ts). */
  readonly runs: number;
}

export const USAGE = `usage: npm run bench -- [--quick | --smoke] [--only <name>[,<name>...]] [--rates N,...] [--runs N]
  --quick   smaller sizes for a fast check (2,000 leads at rates 5 and 20; scale 1k and 10k; analytics 10k leads; audit 4,800 records)
  --smoke   the smallest sizes that run every step of each measurement (what the bench's test runs; the figures mean nothing)
  --only    run only these measurements: ${MEASUREMENTS.join(", ")} (repeatable)
  --rates   the rate-bound measurement's rate_limits, e.g. --rates 50,100 (A/B runs of one rate)
  --latencies  the latency measurement's source latencies in ms, e.g. --latencies 200 (default 50,200,500; --rates sets its rates)
  --runs    run each measurement N times, then print its tables as the median of the runs with their spread (the issues' targets are medians of three runs)
  env:      BENCH_QUICK=1, BENCH_ONLY=<names>`;

export function parseOptions(argv: readonly string[], env: Readonly<Record<string, string | undefined>>): BenchOptions | "help" {
  let size: BenchSize = env["BENCH_QUICK"] === "1" || env["BENCH_QUICK"] === "true" ? "quick" : "full";
  const only: string[] = (env["BENCH_ONLY"] ?? "").split(",").filter((name) => name.trim() !== "");
  let rates: number[] | undefined;
  let latencies: number[] | undefined;
  let runs = 1;
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i]!;
    if (arg === "--help" || arg === "-h") return "help";
    if (arg === "--quick") size = "quick";
    else if (arg === "--smoke") size = "smoke";
    else if (arg === "--only") {
      const value = argv[(i += 1)];
      if (value === undefined) throw new Error("--only needs a name");
      only.push(...value.split(","));
    } else if (arg.startsWith("--only=")) only.push(...arg.slice("--only=".length).split(","));
    else if (arg === "--rates") {
      const value = argv[(i += 1)];
      rates = (value ?? "").split(",").map(Number);
      if (value === undefined || rates.some((rate) => !Number.isInteger(rate) || rate < 1)) throw new Error("--rates needs integers >= 1, e.g. 50,100");
    } else if (arg === "--latencies") {
      const value = argv[(i += 1)];
      latencies = (value ?? "").split(",").map(Number);
      if (value === undefined || latencies.some((ms) => !Number.isInteger(ms) || ms < 0)) throw new Error("--latencies needs integers >= 0 (ms), e.g. 50,200");
    } else if (arg === "--runs") {
      runs = Number(argv[(i += 1)]);
      if (!Number.isInteger(runs) || runs < 1) throw new Error("--runs needs an integer >= 1, e.g. 3");
    } else throw new Error(`unknown argument ${arg}`);
  }
  const names = only.map((name) => name.trim());
  for (const name of names) {
    if (!(MEASUREMENTS as readonly string[]).includes(name)) throw new Error(`unknown measurement "${name}"; one of ${MEASUREMENTS.join(", ")}`);
  }
  return {
    size,
    only: names.length === 0 ? [...MEASUREMENTS] : MEASUREMENTS.filter((name) => names.includes(name)),
    ...(rates === undefined ? {} : { rates }),
    ...(latencies === undefined ? {} : { latencies }),
    runs,
  };
}
