import type { RunSummary } from "../../lambdas/domain/core/run-summary";
import { DEFAULT_SIZES } from "../reference-source/dataset";
import { startReferenceSource } from "../reference-source/start-reference-source";
import { benchClient, bySize, dropTable, freshTable, type BenchContext, type MeasurementResult } from "./bench-env";
import { createInstrumentedSync, type SyncMeasurement } from "./instrumented-sync";
import { TINY_OTHERS, UNBOUND_RATE } from "./page-overhead";
import { median } from "./stats";
import { num, type Table } from "./table";

/** Issue 22's budget, printed beside the figure and never asserted: an audit takes at most this times a full sync at the same rate. */
export const AUDIT_TO_SYNC_BUDGET = 1.2;

/**
 * 9. Audit against a full sync: on a fresh connection, a full sync of the
 * reference source's default data set, then an audit of it (nothing to heal:
 * every page read, compared with the store and its ids kept, each entity then
 * closed against the stored ids), both through the state machine at the same
 * rate_limit. The figure is each run's own wall time (its summary's started_at
 * to finished_at).
 */
export async function measureAudit(context: BenchContext): Promise<MeasurementResult> {
  const sizes = bySize(context, {
    full: DEFAULT_SIZES,
    quick: { ...DEFAULT_SIZES, contacts: 1_000, leads: 1_000, tasks: 600, calls: 600, events: 1_600 },
    smoke: { pipelines: 1, users: 1, contacts: 1, leads: 1, tasks: 1, calls: 1, events: 1 },
  });
  const rates = bySize(context, { full: [20, UNBOUND_RATE], quick: [UNBOUND_RATE], smoke: [UNBOUND_RATE] });
  const client = benchClient(context.endpoint);
  const tableName = await freshTable(client, "audit");
  const source = await startReferenceSource({ sizes });
  // The bench's runs settle in seconds: a poll of 100 ms would be most of a smoke run.
  const pollMs = context.size === "smoke" ? 10 : 100;
  const sync = createInstrumentedSync({ endpoint: context.endpoint, tableName });
  const rows: (string | number)[][] = [];
  try {
    for (const rate of rates) {
      const connection = await sync.addConnection({ baseUrl: source.url, token: source.token, rateLimit: rate });
      context.progress(`audit: a full sync at rate_limit ${rate}`);
      const full = await sync.syncWithStateMachine(connection, pollMs);
      context.progress(`audit: an audit of the same connection at rate_limit ${rate}`);
      const audit = await sync.syncWithStateMachine(connection, pollMs, "audit");
      const ratio = wallMs(audit.summary) / wallMs(full.summary);
      rows.push(row("full sync", rate, full), row("audit (nothing to heal)", rate, audit));
      rows.push([`audit / full sync (budget <= ${AUDIT_TO_SYNC_BUDGET}x)`, rate, "-", "-", "-", `${num(ratio, 2)}x`, ratio <= AUDIT_TO_SYNC_BUDGET ? "met" : "over"]);
    }
  } finally {
    await sync.close();
    await source.close();
    await dropTable(client, tableName);
    client.destroy();
  }
  const records = Object.values(sizes).reduce((sum, n) => sum + n, 0);
  const table: Table = {
    title: `9. An audit against a full sync (reference source ${context.size === "full" ? "default data set" : "reduced data set"}, ${records.toLocaleString("en-US")} records)`,
    columns: ["run", "rate_limit", "pages", "records read", "median page task (ms)", "wall (s)", "status"],
    rows,
    notes: [
      "Each pair on a fresh connection: the full sync first, then the audit of what it stored, so the audit compares every record and heals none.",
      "An audit reads the five incremental entities whole from sync_since (not /pipelines or /users); each page also reads the stored versions (BatchGetItem), keeps the ids it returned (PutItem) and each entity ends with a Query of the stored ids (docs/audits.md).",
      `wall = the run summary's finished_at - started_at. The budget (issue 22) is printed, never asserted.`,
    ],
  };
  return { tables: [table] };
}

function wallMs(summary: RunSummary): number {
  return Date.parse(summary.finished_at ?? summary.started_at) - Date.parse(summary.started_at);
}

function row(label: string, rate: number, run: SyncMeasurement): (string | number)[] {
  const records = run.pages.reduce((sum, page) => sum + page.records, 0);
  const taskMs = run.pages.map((page) => page.endedAt - page.startedAt);
  return [label, rate, run.pages.length, records.toLocaleString("en-US"), num(median(taskMs), 1), num(wallMs(run.summary) / 1000, 2), run.summary.status];
}
