import { performance } from "node:perf_hooks";
import type * as v from "valibot";
import { generateDataset } from "../reference-source/dataset";
import { EventSchema } from "../../lambdas/domain/records/event";
import { LeadSchema } from "../../lambdas/domain/records/lead";
import { parseRecord } from "../../lambdas/domain/records/parse-record";
import { bySize, type BenchContext, type MeasurementResult } from "./bench-env";
import { num, type Table } from "./table";

/**
 * 5. Validation alone: the reference dataset's leads and events (as JSON,
 * i.e. what the source sends, parsed) through parseRecord with the service's
 * valibot schemas, in a tight loop for a fixed time.
 */
export async function measureValidation(context: BenchContext): Promise<MeasurementResult> {
  const seconds = bySize(context, { full: 2, quick: 0.5, smoke: 0.05 });
  // Smoke: a warm-up and a data set just big enough to loop through each schema (the figures mean nothing there).
  const warmUpSeconds = bySize(context, { full: 0.3, quick: 0.3, smoke: 0.01 });
  const count = bySize(context, { full: 10_000, quick: 10_000, smoke: 1_000 });
  const dataset = generateDataset({ seed: 42, pipelines: 3, users: 30, contacts: 0, leads: count, tasks: 0, calls: 0, events: count });
  // What the service validates is parsed JSON, not the generator's objects.
  const leads = JSON.parse(JSON.stringify(dataset.leads)) as unknown[];
  const events = JSON.parse(JSON.stringify(dataset.events)) as unknown[];
  const rows = [
    row("leads (LeadSchema)", LeadSchema, leads, { warmUpSeconds, seconds }, context),
    row("events (EventSchema)", EventSchema, events, { warmUpSeconds, seconds }, context),
  ];
  const table: Table = {
    title: "5. Validation alone: parseRecord(schema) in a tight loop",
    columns: ["schema", "distinct records", "validated", "seconds", "records/s", "µs per record", "per 100-record page (ms)"],
    rows,
    notes: [`The reference dataset (seed 42, ${count.toLocaleString("en-US")} leads, ${count.toLocaleString("en-US")} events) as JSON; ${seconds} s per schema after a ${warmUpSeconds} s warm-up, one thread.`],
  };
  return { tables: [table] };
}

function row(
  name: string,
  schema: v.GenericSchema,
  records: readonly unknown[],
  { warmUpSeconds, seconds }: { readonly warmUpSeconds: number; readonly seconds: number },
  context: BenchContext,
): (string | number)[] {
  context.progress(`validation: ${name}`);
  loop(schema, records, warmUpSeconds);
  const { count, elapsedMs } = loop(schema, records, seconds);
  const perSecond = (count * 1000) / elapsedMs;
  return [name, records.length.toLocaleString("en-US"), count.toLocaleString("en-US"), num(elapsedMs / 1000, 2), num(perSecond, 0), num(1e6 / perSecond, 2), num(100_000 / perSecond, 2)];
}

function loop(schema: v.GenericSchema, records: readonly unknown[], seconds: number): { count: number; elapsedMs: number } {
  const started = performance.now();
  const deadline = started + seconds * 1000;
  let count = 0;
  let sink = 0;
  while (performance.now() < deadline) {
    // Checking the clock once per 1,000 records keeps it out of the figure.
    for (let i = 0; i < 1000; i += 1) {
      const output = parseRecord(schema, records[count % records.length], count % records.length) as { id?: unknown };
      if (output.id !== undefined) sink += 1;
      count += 1;
    }
  }
  if (sink !== count) throw new Error("a validated record has no id");
  return { count, elapsedMs: performance.now() - started };
}
