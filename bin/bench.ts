/**
 * `npm run bench`: how close a sync comes to its two limits (the source's
 * rate_limit and what the store can commit), and what a page costs beyond
 * them. Prints figures (Markdown tables) to stdout, progress to stderr.
 * Not a test: nothing here asserts. Method and figures: docs/performance.md.
 */
process.env["AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED"] = "true";

import { performance } from "node:perf_hooks";
import { startDynamoDbLocal, type DynamoDbLocal } from "../lambdas/runtimes/local/dynamodb-local";
import type { BenchContext } from "./bench/bench-env";
import { machineHeader } from "./bench/machine";
import { MEASURE } from "./bench/measurements";
import { parseOptions, USAGE } from "./bench/options";
import { summarizeRuns } from "./bench/runs-summary";
import { formatTable, type Table } from "./bench/table";

const out = (text: string) => process.stdout.write(text);

async function main(): Promise<number> {
  let options: ReturnType<typeof parseOptions>;
  try {
    options = parseOptions(process.argv.slice(2), process.env);
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n${USAGE}\n`);
    return 2;
  }
  if (options === "help") {
    out(`${USAGE}\n`);
    return 0;
  }
  const started = performance.now();
  const args = process.argv.slice(2);
  out(`${machineHeader(`npm run bench${args.length > 0 ? ` -- ${args.join(" ")}` : ""}`)}\n`);

  const needsStore = options.only.some((name) => name !== "validation");
  let dynamodb: DynamoDbLocal | undefined;
  const binding: string[] = [];
  try {
    if (needsStore) dynamodb = await startDynamoDbLocal();
    for (const name of options.only) {
      const context: BenchContext = {
        endpoint: dynamodb?.endpoint ?? "",
        size: options.size,
        ...(options.rates === undefined ? {} : { rates: options.rates }),
        ...(options.latencies === undefined ? {} : { latencies: options.latencies }),
        progress: (line) => process.stderr.write(`[bench ${((performance.now() - started) / 1000).toFixed(0)} s] ${line}\n`),
      };
      const runs: (readonly Table[])[] = [];
      for (let run = 1; run <= options.runs; run += 1) {
        const of = options.runs > 1 ? ` (run ${run} of ${options.runs})` : "";
        if (of !== "") context.progress(`${name}${of}`);
        const measurementStarted = performance.now();
        const result = await MEASURE[name](context);
        for (const table of result.tables) out(`${formatTable({ ...table, title: `${table.title}${of}` })}\n`);
        out(`(${name}${of}: ${((performance.now() - measurementStarted) / 1000).toFixed(0)} s)\n\n`);
        binding.push(...(result.binding ?? []).map((line) => `${of === "" ? "" : `run ${run}: `}${line}`));
        runs.push(result.tables);
      }
      if (options.runs > 1) for (const table of summarizeRuns(runs)) out(`${formatTable(table)}\n`);
    }
  } finally {
    await dynamodb?.stop();
  }
  if (binding.length > 0) out(`### Binding limit\n\n${binding.map((line) => `- ${line}`).join("\n")}\n\n`);
  out(`Bench finished in ${((performance.now() - started) / 1000).toFixed(0)} s.\n`);
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
