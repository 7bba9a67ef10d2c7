import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readLocalRuntimeConfig, StartupError } from "../lambdas/runtimes/local/local-runtime-config";
import type { LocalRuntime } from "../lambdas/runtimes/local/local-runtime";
import { createJsonLogger } from "../lambdas/adapters/local/json-logger";
import { issueSessionToken } from "../lambdas/runtimes/local/local-token-issuer";
import type { RunSummary } from "../lambdas/domain/core/run-summary";
import { wholeTotal } from "../lambdas/domain/records/fields/price";

/**
 * `npm run demo`: the service and the reference source on this machine, a
 * connection created the way an owner would (through the API), one full sync
 * shown as it happens, then the run summary and a few totals from the
 * canonical data. Waits are scaled (TIME_SCALE, default 0.1 here) so retries
 * show without the full 1-16 s backoff.
 */
const CONNECTIONS = "/api/v1/crm/custom/connections";
const say = (line = "") => process.stdout.write(`${line}\n`);

// The machines here run Node 20; Lambda runs nodejs22.x. The SDK's notice about Node 22 says nothing new locally.
process.env["AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED"] ??= "true";

const DEMO_USAGE = `Usage: npm run demo [-- --help]

Starts the service and the reference source API on this machine, creates a connection as a
workspace owner, runs one full sync showing each entity's pages, retries and waits, then prints
the run summary and totals from the canonical data. Ctrl-C stops everything and removes the
data folder (unless DATA_DIR named it).

Environment:
  DATA_DIR    keep the data in this folder; default a new temporary folder, removed at the end
  PORT        the API's port (default: a free one)
  TIME_SCALE  multiplies the state machine's waits (default 0.1)
`;

/** Exit status after Ctrl-C, as a shell reports a process ended by SIGINT (128 + 2). */
const INTERRUPTED = 130;

async function main(args: readonly string[]): Promise<number> {
  if (args.includes("--help") || args.includes("-h")) {
    process.stdout.write(DEMO_USAGE);
    return 0;
  }
  if (args.length > 0) {
    process.stderr.write(`unknown argument ${args[0]}\n\n${DEMO_USAGE}`);
    return 2;
  }
  // The service and the reference source load only now: --help and a wrong argument answer without loading them.
  const [{ startReferenceSource }, { startLocalRuntime }] = await Promise.all([
    import("./reference-source/start-reference-source"),
    import("../lambdas/runtimes/local/local-runtime"),
  ]);
  const keepData = process.env["DATA_DIR"] !== undefined;
  const dataDir = process.env["DATA_DIR"] ?? mkdtempSync(join(tmpdir(), "crm-demo-"));
  const events: Array<Record<string, unknown>> = [];
  // The service's JSON log lines go to memory: the demo shows what they mean instead.
  const logger = createJsonLogger({ write: (line) => events.push(JSON.parse(line) as Record<string, unknown>) });

  let source: Awaited<ReturnType<typeof startReferenceSource>> | undefined;
  let starting: Promise<LocalRuntime> | undefined;
  let cleaning: Promise<void> | undefined;
  // Once, from the end of the run or from Ctrl-C: whatever has started is stopped (a runtime still starting is
  // awaited first, so its DynamoDB Local is stopped too), then the data folder goes.
  const cleanUp = () =>
    (cleaning ??= (async () => {
      const runtime = await starting?.catch(() => undefined);
      await runtime?.stop();
      await source?.close();
      if (!keepData) rmSync(dataDir, { recursive: true, force: true });
    })());
  // `on`, not `once`: DynamoDB Local's orphan guard re-raises a SIGINT that no listener is left to handle, which
  // would end the process before the clean-up. A second Ctrl-C while cleaning changes nothing.
  let interrupted = false;
  process.on("SIGINT", () => {
    if (interrupted) return;
    interrupted = true;
    say();
    say(`Interrupted: stopping${keepData ? "" : ` and removing ${dataDir}`}`);
    void cleanUp().finally(() => process.exit(INTERRUPTED));
  });

  try {
    source = await startReferenceSource({
      port: 0,
      sizes: { contacts: 2000, leads: 2000, tasks: 1000, calls: 1000, events: 3000 },
      faults: { throttleEvery: 37, retryAfterSeconds: 2, burst503: 2, burstEvery: 53 },
    });
    starting = startLocalRuntime(
      readLocalRuntimeConfig({ ...process.env, PORT: process.env["PORT"] ?? "0", DATA_DIR: dataDir, SCHEDULE: "off", TIME_SCALE: process.env["TIME_SCALE"] ?? "0.1" }),
      logger,
    );
    const runtime = await starting;
    say(`Service:          ${runtime.url}/api/v1  (data in ${dataDir}${keepData ? "" : ", removed at the end or on Ctrl-C"})`);
    say(`Reference source: ${source.url}  (${source.dataset.leads.length} leads, ${source.dataset.contacts.length} contacts; faults: a 429 every 37 requests, 2×503 every 53)`);

    const token = await issueSessionToken({ key: runtime.service.signingKey, account: "demo-workspace", role: "owner" });
    const api = apiClient(runtime.url, token);
    const connection = await api("POST", CONNECTIONS, { base_url: source.url, token: source.token, rate_limit: 20, sync_since: "2020-01-01T00:00:00Z" });
    say(`Connection:       ${connection.id} (rate_limit 20 requests/s)`);
    const test = await api("POST", `${CONNECTIONS}/${connection.id}/test`);
    say(`Test call:        reachable=${test.reachable} authenticated=${test.authenticated}: ${test.detail}`);
    const run = await api("POST", `${CONNECTIONS}/${connection.id}/syncs`);
    say(`Sync run:         ${run.id}`);
    say();

    const summary = await followRun(api, connection.id, run.id, events);
    say();
    printSummary(summary);
    await printTotals(api, connection.id);
    return summary.status === "succeeded" ? 0 : 1;
  } finally {
    await cleanUp();
  }
}

type Api = (method: string, path: string, body?: unknown) => Promise<any>;

function apiClient(url: string, token: string): Api {
  return async (method, path, body) => {
    const response = await fetch(`${url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${text}`);
    return text ? JSON.parse(text) : null;
  };
}

/** Prints progress as it happens: entity by entity, with the retries and waits the state machine makes. */
async function followRun(api: Api, connectionId: string, runId: string, events: Array<Record<string, unknown>>): Promise<RunSummary> {
  let seenEvents = 0;
  const shown = new Map<string, string>();
  for (;;) {
    const summary = (await api("GET", `${CONNECTIONS}/${connectionId}/syncs/${runId}`)) as RunSummary;
    for (; seenEvents < events.length; seenEvents += 1) {
      const event = events[seenEvents]!;
      if (event["message"] === "page throttled") {
        say(`  ⏸  ${event["entity"]} page ${event["page"]}: 429, Retry-After ${event["retry_after_seconds"]} s; waiting the larger of that and backoff step ${event["attempt"]}`);
      } else if (event["message"] === "page request failed; the state machine retries it") {
        say(`  ↻  ${event["entity"]} page ${event["page"]}: ${String(event["error"]).slice(0, 80)}; retrying with backoff`);
      }
    }
    for (const row of summary.entities) {
      const line = `${row.entity.padEnd(10)} ${row.status.padEnd(9)} ${String(row.pages).padStart(4)} pages ${String(row.records).padStart(6)} records${row.error ? `  ${row.error}` : ""}`;
      const bucket = row.status === "running" ? `${row.status}:${Math.floor(row.pages / 10)}` : row.status;
      if (row.status !== "pending" && shown.get(row.entity) !== bucket) {
        shown.set(row.entity, bucket);
        say(`  ${row.status === "succeeded" ? "✓" : row.status === "failed" ? "✗" : "…"}  ${line}`);
      }
    }
    if (summary.status !== "running") return summary;
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
}

function printSummary(summary: RunSummary): void {
  const seconds = summary.finished_at ? (Date.parse(summary.finished_at) - Date.parse(summary.started_at)) / 1000 : 0;
  say(`Run ${summary.id}: ${summary.status.toUpperCase()} in ${seconds.toFixed(1)} s; leads neither won nor lost (stage unknown): ${summary.unresolved_won_lost}`);
  say("  entity     status     pages  records  error");
  for (const row of summary.entities) {
    say(`  ${row.entity.padEnd(10)} ${row.status.padEnd(9)} ${String(row.pages).padStart(6)} ${String(row.records).padStart(8)}  ${row.error ?? ""}`);
  }
}

/** A few totals from the canonical data, read back through the records endpoint. */
async function printTotals(api: Api, connectionId: string): Promise<void> {
  const all = async (entity: string) => {
    const records: Array<Record<string, any>> = [];
    let cursor: string | null = null;
    do {
      const page: { data: Array<Record<string, any>>; next_cursor: string | null } = await api(
        "GET",
        `${CONNECTIONS}/${connectionId}/records/${entity}?limit=1000${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
      );
      records.push(...page.data);
      cursor = page.next_cursor;
    } while (cursor);
    return records;
  };
  const leads = (await all("leads")).filter((lead) => !lead["is_deleted"]);
  const tasks = await all("tasks");
  const won = leads.filter((lead) => lead["is_won"]);
  const lost = leads.filter((lead) => lead["is_lost"]);
  const revenue = BigInt(wholeTotal(won.map((lead) => lead["price"])));
  const now = Date.now();
  const overdue = tasks.filter((task) => !task["is_completed"] && task["due_at"] !== null && Date.parse(task["due_at"]) < now);
  say();
  say(`Canonical data: ${leads.length} leads: ${won.length} won, ${lost.length} lost, revenue won ${revenue.toLocaleString("en-US")}; ${tasks.length} tasks, ${overdue.length} overdue`);
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof StartupError ? `cannot start: ${error.message}` : `demo failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
