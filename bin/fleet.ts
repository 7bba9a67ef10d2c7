/**
 * `npm run fleet -- --connections 500`: one local schedule tick over N
 * connections, each against a small loopback source (one page per entity).
 * Builds the local runtime's sync (createLocalSync on an in-memory DynamoDB
 * Local, the SSRF-guarded HTTP client, the local engine), fires the tick the
 * local schedule fires, waits for every run to end, and prints the figures.
 * Not a test: nothing here asserts. docs/fleet-scale.md reads the figures.
 */
process.env["AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED"] = "true";

import { randomBytes } from "node:crypto";
import { execFile } from "node:child_process";
import { performance } from "node:perf_hooks";
import { promisify } from "node:util";
import { createDynamoDbClient } from "../lambdas/adapters/dynamodb/table/dynamodb-client";
import type { StoredConnection } from "../lambdas/domain/core/connection";
import { AesGcmTokenCipher } from "../lambdas/adapters/local/aes-token-cipher";
import { startDynamoDbLocal } from "../lambdas/runtimes/local/dynamodb-local";
import { createLocalSync } from "../lambdas/runtimes/local/local-composition";
import { createJsonLogger } from "../lambdas/adapters/local/json-logger";
import { createHttpSourceClient } from "../lambdas/adapters/source-http/http-source-client";
import { createGuardedFetch } from "../lambdas/adapters/source-http/ssrf/guarded-fetch";
import { ensureTable } from "../lambdas/adapters/dynamodb/table/table-definition";
import { createLocalDispatch } from "../lambdas/runtimes/local/local-dispatch";
import { DEFAULT_LOCAL_MAX_CONCURRENT_RUNS } from "../lambdas/runtimes/local/local-runtime-config";
import { FLEET_TOKEN, startFleetSource } from "./fleet/fleet-source";
import { spread, timeDynamoDb, timeEngine, timeLimiter, watchProcess, watchRuns } from "./fleet/fleet-probes";
import { tickReadCounter } from "./cost/tick-reads";

const USAGE =
  "usage: npm run fleet -- [--connections N] [--max-concurrent-runs C] [--rate-limit R] [--timeout-s S]";

function parseArgs(argv: readonly string[]) {
  const options = { connections: 100, maxConcurrentRuns: DEFAULT_LOCAL_MAX_CONCURRENT_RUNS, rateLimit: 5, timeoutS: 900 };
  for (let i = 0; i < argv.length; i += 2) {
    const value = Number(argv[i + 1]);
    if (!Number.isInteger(value) || value < 1) throw new Error(`${argv[i]} needs a whole number >= 1`);
    if (argv[i] === "--connections") options.connections = value;
    else if (argv[i] === "--max-concurrent-runs") options.maxConcurrentRuns = value;
    else if (argv[i] === "--rate-limit") options.rateLimit = value;
    else if (argv[i] === "--timeout-s") options.timeoutS = value;
    else throw new Error(`unknown option ${argv[i]}`);
  }
  return options;
}

const progress = (line: string) => process.stderr.write(`[fleet ${(performance.now() / 1000).toFixed(0)} s] ${line}\n`);
const fixed = (n: number, digits = 0) => n.toFixed(digits);

/** RSS of this process's children (DynamoDB Local's JVM), in MB. */
async function childrenRssMb(): Promise<number> {
  try {
    const { stdout } = await promisify(execFile)("ps", ["-o", "rss=", "--ppid", String(process.pid)]);
    return stdout.split(/\s+/).filter(Boolean).reduce((sum, kb) => sum + Number(kb), 0) / 1024;
  } catch {
    return 0;
  }
}

const tickLine = (tick: ReturnType<ReturnType<typeof tickReadCounter>["totals"]>) =>
  `${tick.rruPerConnection.toFixed(3)} RRU (${tick.listedItems} connections listed in ${tick.queries} Queries, ${tick.lockReads} run locks in ${tick.batchGets} BatchGetItems, ${tick.pages} pages)`;

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  const dynamodb = await startDynamoDbLocal();
  const client = createDynamoDbClient({ endpoint: dynamodb.endpoint, region: "local", credentials: { accessKeyId: "local", secretAccessKey: "local" } });
  const source = await startFleetSource();
  let logLines = 0;
  const logger = createJsonLogger({ write: () => void (logLines += 1) });
  const errors = new Map<string, number>();
  const countingLogger = {
    ...logger,
    error: (message: string, fields?: Record<string, unknown>) => {
      errors.set(message, (errors.get(message) ?? 0) + 1);
      logger.error(message, fields);
    },
  };
  try {
    await ensureTable(client, "fleet");
    const cipher = new AesGcmTokenCipher(randomBytes(32));
    const http = createHttpSourceClient({ fetch: createGuardedFetch({ allowLoopback: true }) });
    const local = createLocalSync({ client, tableName: "fleet", cipher, source: http, logger: countingLogger, timeScale: 1 });

    progress(`creating ${options.connections} connections`);
    const now = new Date().toISOString();
    for (let index = 0; index < options.connections; index += 1) {
      const id = `conn-${String(index).padStart(5, "0")}`;
      const connection: StoredConnection = {
        id,
        business_account_id: `acct-${index % 10}`,
        crm_type: "custom",
        base_url: source.baseUrlOf(index),
        rate_limit: options.rateLimit,
        sync_since: "2026-01-01T00:00:00.000Z",
        created_at: now,
        updated_at: now,
        token_ciphertext: await cipher.encrypt(FLEET_TOKEN, { businessAccountId: `acct-${index % 10}`, connectionId: id }),
      };
      await local.connections.put(connection);
    }

    const runs = watchRuns(local.runs);
    // What the tick's ListConnections reads: counted at the ports, priced as bin/cost/tick-reads.ts prices them.
    const tickReads = tickReadCounter();
    let tickPages = 0;
    const listAllPage = local.startDeps.connections.listAllPage.bind(local.startDeps.connections);
    local.startDeps.connections.listAllPage = async (page) => {
      const listed = await listAllPage(page);
      tickReads.query(listed.connections.length);
      return listed;
    };
    const heldLocks = local.startDeps.runs.heldLocks.bind(local.startDeps.runs);
    local.startDeps.runs.heldLocks = async (ids) => {
      tickPages += 1;
      tickReads.locks(new Set(ids).size);
      return heldLocks(ids);
    };
    const ddb = timeDynamoDb(client);
    const limiter = timeLimiter(local.limiter);
    // The page tasks run on the Express page loop's engine (the run's Standard parent only starts segments).
    const engine = timeEngine(local.engine.child);
    const proc = watchProcess();
    let childRssPeakMb = 0;
    const childSampler = setInterval(() => void childrenRssMb().then((mb) => (childRssPeakMb = Math.max(childRssPeakMb, mb))), 2_000);
    childSampler.unref();
    const lines = setInterval(
      () => progress(`runs running ${runs.current}, begun ${runs.begun}, finished ${runs.finished.succeeded + runs.finished.failed}, source requests ${source.total}`),
      10_000,
    );
    lines.unref();

    progress("one schedule tick");
    const started = performance.now();
    // The tick the local runtime's schedule fires (lambdas/runtimes/local/local-runtime.ts): the dispatch state machine.
    const dispatch = createLocalDispatch({ startDeps: local.startDeps, integrations: local.engine.integrations, maxConcurrentRuns: options.maxConcurrentRuns, timeScale: 1, logger: countingLogger });
    const tick = (await dispatch.tick()).status;
    const dispatchS = (performance.now() - started) / 1000;
    progress(`tick returned after ${fixed(dispatchS, 1)} s: ${tick}`);
    const expected = options.connections;
    const timedOut = await Promise.race([
      runs.whenFinished(expected).then(() => false),
      new Promise<boolean>((resolve) => setTimeout(() => resolve(true), options.timeoutS * 1000).unref()),
    ]);
    const wallS = (performance.now() - started) / 1000;
    clearInterval(lines);
    clearInterval(childSampler);
    const memory = proc.stop();
    // What the service still holds once the tick is over (run with NODE_OPTIONS=--expose-gc; else not measured).
    const gc = (globalThis as { gc?: () => void }).gc;
    gc?.();
    const after = process.memoryUsage();

    const ddbAll = spread(ddb.all());
    const out = [
      `## npm run fleet -- --connections ${options.connections} --max-concurrent-runs ${options.maxConcurrentRuns} --rate-limit ${options.rateLimit}`,
      "",
      `node ${process.version}, ${(await import("node:os")).cpus().length} cores`,
      "",
      "| figure | value |",
      "|---|---|",
      `| connections | ${options.connections} |`,
      `| cap on concurrent runs (MAX_CONCURRENT_RUNS) | ${options.maxConcurrentRuns} |`,
      `| runs started by the tick | ${runs.begun} |`,
      `| runs completed (succeeded) | ${runs.finished.succeeded} |`,
      `| runs failed | ${runs.finished.failed} |`,
      `| runs not finished at the end | ${runs.begun - runs.finished.succeeded - runs.finished.failed}${timedOut ? ` (gave up after ${options.timeoutS} s)` : ""} |`,
      `| max concurrent runs | ${runs.maxConcurrent} |`,
      `| max concurrent runs of one connection | ${runs.maxPerConnection} |`,
      `| max requests in flight to one connection's source | ${source.maxInFlightPerConnection} |`,
      `| max Task handlers in flight | ${engine.maxInFlight} |`,
      `| tick (dispatch call) returned after | ${fixed(dispatchS, 1)} s |`,
      `| wall time, tick to last run finished | ${fixed(wallS, 1)} s |`,
      `| source requests | ${source.total} (${fixed(source.total / options.connections, 1)} per connection) |`,
      `| peak RSS, service process | ${fixed(memory.rssPeakMb)} MB (baseline ${fixed(memory.rssBaselineMb)} MB) |`,
      `| peak heapUsed, main thread | ${fixed(memory.heapPeakMb)} MB |`,
      `| heapUsed / RSS after the tick, GC'd | ${gc === undefined ? "not measured (NODE_OPTIONS=--expose-gc)" : `${fixed(after.heapUsed / 2 ** 20)} / ${fixed(after.rss / 2 ** 20)} MB`} |`,
      `| peak RSS, DynamoDB Local (JVM) | ${fixed(childRssPeakMb)} MB |`,
      `| event-loop delay p50 / p99 / max | ${fixed(memory.loopDelayP50Ms, 1)} / ${fixed(memory.loopDelayP99Ms, 1)} / ${fixed(memory.loopDelayMaxMs)} ms |`,
      `| the tick's ListConnections: reads per connection per tick | ${tickLine(tickReads.totals(options.connections, tickPages))} |`,
      `| DynamoDB calls, latency p50 / p95 / max | ${ddbAll.n} calls, ${fixed(ddbAll.p50, 1)} / ${fixed(ddbAll.p95, 1)} / ${fixed(ddbAll.max)} ms (${ddb.errors} errors) |`,
      `| limiter acquire() p50 / p95 / max | ${fixed(spread(limiter.samples).p50, 1)} / ${fixed(spread(limiter.samples).p95, 1)} / ${fixed(spread(limiter.samples).max)} ms |`,
      `| engine turnaround (task reply to next task) p50 / p95 / max | ${fixed(engine.turnaround().p50, 1)} / ${fixed(engine.turnaround().p95, 1)} / ${fixed(engine.turnaround().max)} ms |`,
      "",
      "| Task state | calls | p50 ms | p95 ms | max ms |",
      "|---|---|---|---|---|",
      ...engine.handlers().map((row) => `| ${row.name} | ${row.n} | ${fixed(row.p50, 1)} | ${fixed(row.p95, 1)} | ${fixed(row.max)} |`),
      "",
      "| DynamoDB command | calls | p50 ms | p95 ms | max ms |",
      "|---|---|---|---|---|",
      ...ddb.byCommand().map((row) => `| ${row.name} | ${row.n} | ${fixed(row.p50, 1)} | ${fixed(row.p95, 1)} | ${fixed(row.max)} |`),
      "",
      ...(errors.size === 0 ? [] : ["Errors logged: " + [...errors].map(([message, n]) => `${message} x${n}`).join("; "), ""]),
    ];
    process.stdout.write(`${out.join("\n")}\n`);
    await dispatch.stop();
    await local.stop();
    // Why runs failed: each entity's error, from the summaries of the first 50 runs (a store still busy with runs cut short is slow).
    const entityErrors = new Map<string, number>();
    for (let index = 0; index < Math.min(options.connections, 50); index += 1) {
      const [latest] = await local.runs.list(`conn-${String(index).padStart(5, "0")}`, { limit: 1 });
      for (const row of latest?.entities ?? []) {
        if (row.status !== "failed") continue;
        const key = String(row.error ?? "?").replace(/conn-\d+/g, "conn-N").slice(0, 90);
        entityErrors.set(key, (entityErrors.get(key) ?? 0) + 1);
      }
    }
    process.stdout.write(
      `${(entityErrors.size === 0 ? ["No entity failed (first 50 runs)."] : ["| entity error (first 50 runs) | entities |", "|---|---|", ...[...entityErrors].map(([error, n]) => `| ${error} | ${n} |`)]).join("\n")}\n`,
    );
  } finally {
    await source.close();
    client.destroy();
    await dynamodb.stop();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`fleet failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n${USAGE}\n`);
    process.exit(1);
  },
);
