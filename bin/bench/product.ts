import { closeSync, openSync, writeSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import type { Logger } from "../../lambdas/domain/core/ports/logger";
import { readLocalRuntimeConfig } from "../../lambdas/runtimes/local/local-runtime-config";
import { startLocalRuntime, type LocalRuntime } from "../../lambdas/runtimes/local/local-runtime";
import { runtimeApi } from "./runtime-api";
import { createJsonLogger } from "../../lambdas/adapters/local/json-logger";
import { benchClient, bySize, dropTable, freshTable, type BenchContext, type MeasurementResult } from "./bench-env";
import { createInstrumentedSync } from "./instrumented-sync";
import { pageBudget, type LogCall, type PageBudget, type TaskSpan } from "./page-budget";
import { TINY_OTHERS } from "./page-overhead";
import { epochNow, startProcessProbe, type ProcessProbe } from "./process-probe";
import { startSourceProcess } from "./source-process";
import { median } from "./stats";
import { num, type Table } from "./table";

const CONNECTIONS = "/api/v1/crm/custom/connections";
/** The rate the product's figures were first taken at (19-28 s for 245 pages). */
const PRODUCT_RATE = 100;

/**
 * 8. The product, not a harness: a full sync of the reference CRM (every
 * entity, its default sizes) through the runtime `npm start` builds
 * (startLocalRuntime: its onboarding API, its local engine with the Express
 * page-loop segments, DynamoDB Local keeping its data in a directory), driven
 * the way a user drives it (create the connection, POST .../syncs). Beside it,
 * on the same source at the same rate, the bench's plain loop over the same
 * Task handlers twice: on the bench's in-memory DynamoDB Local and on the
 * runtime's own. After one untimed sync on each store, rounds run the three in
 * turn. All are timed from outside the service (process-probe.ts: every
 * DynamoDB call and source request; the engine's own history for the task
 * states; a timed logger), so their time per page splits into the same named
 * parts and the differences have names.
 */
export async function measureProduct(context: BenchContext): Promise<MeasurementResult> {
  const rounds = bySize(context, { full: 2, quick: 1, smoke: 1 });
  // Smoke: two leads pages (the runtime fetches ahead only within an entity), one page of each other entity.
  const sizes = bySize<Readonly<Record<string, number>>>(context, { full: {}, quick: {}, smoke: { ...TINY_OTHERS, leads: 150 } });
  const source = await startSourceProcess(sizes);
  const probe = startProcessProbe({ sourceOrigin: source.url });
  const dataDir = await mkdtemp(join(tmpdir(), "bench-product-"));
  const log = timedFileLogger(join(dataDir, "service.log"));
  const client = benchClient(context.endpoint);
  const tableName = await freshTable(client, "product-loop");
  const loop = createInstrumentedSync({ endpoint: context.endpoint, tableName, logger: log.logger });
  let runtime: LocalRuntime | undefined;
  let storeLoop: { loop: ReturnType<typeof createInstrumentedSync>; client: ReturnType<typeof benchClient>; tableName: string } | undefined;
  const results: { product: RunFigures[]; loop: RunFigures[]; storeLoop: RunFigures[] } = { product: [], loop: [], storeLoop: [] };
  try {
    context.progress("product: starting the runtime npm start builds (DynamoDB Local with a data directory)");
    runtime = await startLocalRuntime(
      readLocalRuntimeConfig({ DATA_DIR: dataDir, PORT: "0", SCHEDULE: "off", TIME_SCALE: "1", ALLOW_LOOPBACK_SOURCES: "true" }),
      log.logger,
    );
    // The same loop on the runtime's own DynamoDB Local (its data directory): what the store's mode costs, apart from the runtime.
    const storeClient = benchClient(runtime.dynamodbEndpoint);
    const storeTable = await freshTable(storeClient, "product-loop-store");
    storeLoop = { client: storeClient, tableName: storeTable, loop: createInstrumentedSync({ endpoint: runtime.dynamodbEndpoint, tableName: storeTable, logger: log.logger }) };
    // Each DynamoDB Local's JIT warms over its first thousands of writes: one untimed sync on each first, so that
    // no variant is measured on a cold store (the runtime's is started here, the bench's may be fresh too).
    // Not in the smoke size: its figures mean nothing, and the test that runs it is among the suite's slowest.
    if (context.size !== "smoke") {
      context.progress("product: warm-up (one untimed sync through the runtime, one by the plain loop)");
      await productRun(runtime, source, probe, log);
      await loopRun(loop, source, probe, log);
    }
    for (let round = 1; round <= rounds; round += 1) {
      context.progress(`product: round ${round} of ${rounds}, full sync through the runtime at rate_limit ${PRODUCT_RATE}`);
      results.product.push(await productRun(runtime, source, probe, log));
      context.progress(`product: round ${round} of ${rounds}, the plain loop over the same handlers`);
      results.loop.push(await loopRun(loop, source, probe, log));
      context.progress(`product: round ${round} of ${rounds}, the plain loop on the runtime's own DynamoDB Local (data directory)`);
      results.storeLoop.push(await loopRun(storeLoop.loop, source, probe, log));
    }
  } finally {
    probe.stop();
    if (storeLoop !== undefined) {
      await storeLoop.loop.close();
      await dropTable(storeLoop.client, storeLoop.tableName);
      storeLoop.client.destroy();
    }
    await runtime?.stop();
    await loop.close();
    await source.close();
    await dropTable(client, tableName);
    client.destroy();
    log.close();
    await rm(dataDir, { recursive: true, force: true });
  }
  return {
    tables: [
      comparison(
        [
          { label: "npm start's runtime", runs: results.product },
          { label: "plain loop, in-memory store", runs: results.loop },
          { label: "plain loop, the runtime's store", runs: results.storeLoop },
        ],
        rounds,
      ),
    ],
  };
}

interface RunFigures {
  readonly status: string;
  readonly budget: PageBudget;
  /** The run as the source saw it: its requests, first to last. */
  readonly requests: number;
  readonly spanMs: number;
  /** Asked to start (the API call, or the loop's begin) to the first page task; the last page task's end to the run's end. */
  readonly beforeMs: number;
  readonly afterMs: number;
}

async function productRun(runtime: LocalRuntime, source: Awaited<ReturnType<typeof startSourceProcess>>, probe: ProcessProbe, log: TimedLog): Promise<RunFigures> {
  const api = await runtimeApi(runtime, "bench-account");
  const created = await api("POST", CONNECTIONS, { base_url: source.url, token: source.token, rate_limit: PRODUCT_RATE, sync_since: "2020-01-01T00:00:00Z" });
  const connectionId = String(created["id"]);
  const before = (await source.requests()).length;
  const engine = runtime.service.sync.engine;
  const seen = engineHistory(engine);
  probe.reset();
  log.reset();
  const requestedAt = epochNow();
  const started = await api("POST", `${CONNECTIONS}/${connectionId}/syncs`);
  const runId = String(started["id"]);
  // Waits on the engine's own results (no polling of the store, whose reads the probe would count); reads the histories as it goes.
  for (;;) {
    seen.collect();
    const running = engine.list().filter((execution) => execution.status === "RUNNING");
    if (running.length === 0) break;
    await Promise.race([Promise.all(running.map((execution) => engine.result(execution.executionId))), delay(100)]);
  }
  seen.collect();
  const settledAt = epochNow();
  const summary = await api("GET", `${CONNECTIONS}/${connectionId}/syncs/${runId}`);
  const tasks = seen.tasks();
  return figures(String(summary["status"]), tasks, probe, log, (await source.requests()).slice(before), requestedAt, settledAt);
}

async function loopRun(loop: ReturnType<typeof createInstrumentedSync>, source: Awaited<ReturnType<typeof startSourceProcess>>, probe: ProcessProbe, log: TimedLog): Promise<RunFigures> {
  const connection = await loop.addConnection({ baseUrl: source.url, token: source.token, rateLimit: PRODUCT_RATE });
  const before = (await source.requests()).length;
  probe.reset();
  log.reset();
  const requestedAt = epochNow();
  const run = await loop.syncWithPlainLoop(connection);
  const settledAt = epochNow();
  // The instrumented sync's times are performance.now(); the probe's are epoch.
  const origin = epochNow() - performance.now();
  const tasks: TaskSpan[] = run.tasks.map((task) => ({ state: task.state, startedAt: task.startedAt + origin, endedAt: task.endedAt + origin }));
  return figures(run.summary.status, tasks, probe, log, (await source.requests()).slice(before), requestedAt, settledAt);
}

function figures(status: string, tasks: readonly TaskSpan[], probe: ProcessProbe, log: TimedLog, requests: readonly { receivedAt: number }[], requestedAt: number, settledAt: number): RunFigures {
  const budget = pageBudget({ tasks, dynamodb: probe.dynamodb, fetches: probe.fetches, logs: log.calls });
  const pages = tasks.filter((task) => task.state === "SyncPage");
  const arrivals = requests.map((request) => request.receivedAt);
  return {
    status,
    budget,
    requests: requests.length,
    spanMs: Math.max(...arrivals) - Math.min(...arrivals),
    beforeMs: Math.min(...pages.map((task) => task.startedAt)) - requestedAt,
    afterMs: settledAt - Math.max(...pages.map((task) => task.endedAt)),
  };
}

/** The engine's Task states, from the histories it keeps (read while the run goes, before a finished one's history is let go). */
function engineHistory(engine: LocalRuntime["service"]["sync"]["engine"]) {
  const entered = new Map<string, { state: string; executionId: string; at: number }[]>();
  const spans: TaskSpan[] = [];
  const read = new Map<string, number>();
  // Executions of earlier runs (their histories may already be let go), and ours once read after their end.
  const done = new Set(engine.list().map((execution) => execution.executionId));
  return {
    collect() {
      for (const execution of engine.list()) {
        if (done.has(execution.executionId)) continue;
        if (execution.status !== "RUNNING") done.add(execution.executionId);
        const events = engine.events(execution.executionId);
        const from = read.get(execution.executionId) ?? 0;
        for (const event of events.filter((each) => each.id > from)) {
          const state = (event as { state?: { name?: string; type?: string } }).state;
          if (state?.type !== "Task" || state.name === undefined) continue;
          const open = entered.get(execution.executionId) ?? [];
          if (event.type === "StateEntered") open.push({ state: state.name, executionId: execution.executionId, at: event.timestamp });
          else if (event.type === "StateExited" || event.type === "StateFailed") {
            const index = open.findIndex((each) => each.state === state.name);
            if (index >= 0) {
              const [start] = open.splice(index, 1);
              spans.push({ state: start!.state, executionId: start!.executionId, startedAt: start!.at, endedAt: event.timestamp });
            }
          }
          entered.set(execution.executionId, open);
        }
        read.set(execution.executionId, Math.max(from, ...events.map((each) => each.id)));
      }
    },
    tasks: () => spans,
  };
}

interface TimedLog {
  readonly logger: Logger;
  readonly calls: LogCall[];
  reset(): void;
  close(): void;
}

/** The service's JSON logger writing to a file, as `npm start` writes to its stdout when redirected; each call timed. */
function timedFileLogger(path: string): TimedLog {
  const fd = openSync(path, "a");
  const inner = createJsonLogger({ write: (line) => writeSync(fd, `${line}\n`) });
  const calls: LogCall[] = [];
  const timed =
    (level: keyof Logger) =>
    (message: string, fields?: Record<string, unknown>) => {
      const at = epochNow();
      inner[level](message, fields);
      calls.push({ at, ms: epochNow() - at });
    };
  return {
    logger: { info: timed("info"), warn: timed("warn"), error: timed("error") },
    calls,
    reset: () => void (calls.length = 0),
    close: () => closeSync(fd),
  };
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

interface Variant {
  readonly label: string;
  readonly runs: readonly RunFigures[];
}

/**
 * The runtime against the plain loop twice: on the bench's in-memory DynamoDB Local (the page loop of
 * measurement 4) and on the runtime's own, which keeps its data in a directory as `npm start` must. The
 * first ratio is issue 24's target; the two loops' difference is what the store's mode costs, and the
 * runtime against the second loop is what the runtime itself costs.
 */
function comparison(variants: readonly Variant[], rounds: number): Table {
  const [product, loop, storeLoop] = variants as [Variant, Variant, Variant];
  const names = [...new Set(variants.flatMap((variant) => variant.runs.flatMap((run) => run.budget.parts.map((part) => part.name))))];
  // Per page: the rounds' totals over their pages; the spread: each round's own figure.
  const perPage = (runs: readonly RunFigures[], name: string) => {
    const each = runs.map((run) => (run.budget.parts.find((part) => part.name === name)?.ms ?? 0) / run.budget.pages);
    return { median: median(each), min: Math.min(...each), max: Math.max(...each) };
  };
  const count = (runs: readonly RunFigures[], name: string) => {
    const parts = runs.map((run) => run.budget.parts.find((part) => part.name === name));
    const total = parts.reduce((sum, part) => sum + (part?.count ?? 0), 0);
    const pages = runs.reduce((sum, run) => sum + run.budget.pages, 0);
    return parts.some((part) => part?.count !== undefined) ? num(total / pages, 2) : "-";
  };
  const cell = (figure: { median: number; min: number; max: number }) =>
    rounds > 1 ? `${num(figure.median, 2)} (${num(figure.min, 2)}-${num(figure.max, 2)})` : num(figure.median, 2);
  const whole = (pick: (run: RunFigures) => number) => variants.map((variant) => cell(stats(variant.runs.map(pick))));
  const ratio = (a: Variant, b: Variant) => num(median(a.runs.map(rate)) / median(b.runs.map(rate)), 2) + "x";
  const delta = (a: Variant, b: Variant, pick: (run: RunFigures) => number) => num(median(a.runs.map(pick)) - median(b.runs.map(pick)), 2);
  const row = (figure: string, pick: (run: RunFigures) => number, compare: (a: Variant, b: Variant) => string) => [
    figure,
    ...whole(pick),
    compare(product, loop),
    compare(product, storeLoop),
    ...variants.map(() => "-"),
  ];
  const perPageMs = (run: RunFigures) => run.budget.wallMs / run.budget.pages;
  const rows = [
    ["run status", ...variants.map((variant) => variant.runs.map((run) => run.status).join(", ")), "-", "-", ...variants.map(() => "-")],
    row("page tasks (a retried page counts again)", (run) => run.budget.pages, () => "-"),
    row("requests at the source", (run) => run.requests, () => "-"),
    row("pages per second (requests - 1) / (last arrival - first)", rate, ratio),
    row("wall per page (first page task's start to the last one's end) / pages", perPageMs, (a, b) => delta(a, b, perPageMs)),
    ...names.map((name) => [
      `  ${name}`,
      ...variants.map((variant) => cell(perPage(variant.runs, name))),
      num(perPage(product.runs, name).median - perPage(loop.runs, name).median, 2),
      num(perPage(product.runs, name).median - perPage(storeLoop.runs, name).median, 2),
      ...variants.map((variant) => count(variant.runs, name)),
    ]),
    row("before the first page task: asked to start to its start (s)", (run) => run.beforeMs / 1000, (a, b) => delta(a, b, (run) => run.beforeMs / 1000)),
    row("after the last page task: its end to the run's end seen (s)", (run) => run.afterMs / 1000, (a, b) => delta(a, b, (run) => run.afterMs / 1000)),
  ];
  return {
    title: `8. The product: a full sync of the reference CRM through the runtime npm start builds vs the plain loop over the same handlers (rate_limit ${PRODUCT_RATE}, every entity; ms per page unless marked)`,
    columns: [
      "figure",
      ...variants.map((variant) => variant.label),
      `runtime vs ${loop.label}`,
      `runtime vs ${storeLoop.label}`,
      ...variants.map((variant) => `per page: calls or lines (${variant.label})`),
    ],
    rows,
    notes: [
      `${rounds} round(s), each a full sync through the runtime on a new connection (created and started through its API, as a user does), then one by the plain loop on each store; ${rounds > 1 ? "each cell is the median of the rounds (min-max of the rounds)" : "one round: no spread"}.`,
      "The runtime: startLocalRuntime with a fresh DATA_DIR (DynamoDB Local with its data directory, on its own Java process), SCHEDULE off, TIME_SCALE 1; its logger writes JSON lines to a file. The loops: createInstrumentedSync's handlers called one after the other, the same logger, on the bench's in-memory DynamoDB Local and on a table of the runtime's own DynamoDB Local.",
      "Timed from outside the service: Node's http.client diagnostics channels time each DynamoDB call (by its X-Amz-Target), undici's each source request; the runtime's Task states come from its engine's history (worker clock, ms), the loops' from their wrapped handlers. The parts add up to the wall per page.",
      "DynamoDB GetItem is the connection read (and a watermark read at an entity's start); PutItem the limiter's slot; UpdateItem the run summary (an entity's start and finish); Query the stage kinds; TransactWriteItems the page's commit.",
      "Compare with measurement 4 (leads-only, unbound rate) and with the floor of 1 and 2: this one is the whole product at a rate a customer declares, entity starts and finishes included.",
    ],
  };
}

const rate = (run: RunFigures) => ((run.requests - 1) * 1000) / run.spanMs;

function stats(values: readonly number[]) {
  return { median: median(values), min: Math.min(...values), max: Math.max(...values) };
}
