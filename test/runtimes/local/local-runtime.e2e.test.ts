import { spawn } from "node:child_process";
import { mkdtemp, mkdir, rm, symlink, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { readLocalRuntimeConfig } from "../../../lambdas/runtimes/local/local-runtime-config";
import { startLocalRuntime, type LocalRuntime } from "../../../lambdas/runtimes/local/local-runtime";
import { issueSessionToken } from "../../../lambdas/runtimes/local/local-token-issuer";
import { createMemoryLogger } from "../../../lambdas/adapters/local/json-logger";
import { leadRecord, pipelineRecord, userRecord } from "../../builders/source-records";
import { crmSource } from "../../support/crm-source";
import { gate } from "../../support/gate";
import { startSourceServer, type SourceServer } from "../../support/source-server";
import { runSettled } from "../../support/run-settled";
import { childProcessEnv } from "../../support/child-process-env";

const CONNECTIONS = "/api/v1/crm/custom/connections";
const SOURCE_TOKEN = "runtime-src-token-31d0";
let dataDir: string;
let source: SourceServer;
/** While set, the request for that page of /leads reports its arrival and is held until released. */
let holdLeads: { readonly page: string; readonly arrived: () => void; readonly released: Promise<void> } | null = null;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "crm-runtime-"));
  const leads = Array.from({ length: 600 }, (_, i) => leadRecord({ id: `l${i}`, updated_at: new Date(Date.UTC(2026, 5, 1, 0, i)).toISOString() }));
  const serve = crmSource(() => ({ pipelines: [pipelineRecord()], users: [userRecord()], contacts: [], leads }), { token: SOURCE_TOKEN });
  source = await startSourceServer(async (request) => {
    const hold = holdLeads;
    if (hold && request.path === "/leads" && request.query.get("page") === hold.page) {
      hold.arrived();
      await hold.released;
    }
    return serve(request);
  });
});
afterAll(async () => {
  await source.close();
  await rm(dataDir, { recursive: true, force: true });
});

async function start(): Promise<LocalRuntime> {
  return startLocalRuntime(readLocalRuntimeConfig({ DATA_DIR: dataDir, PORT: "0", SCHEDULE: "off", TIME_SCALE: "0.01" }), createMemoryLogger());
}
async function call(runtime: LocalRuntime, method: string, path: string, body?: unknown) {
  const token = await issueSessionToken({ key: runtime.service.signingKey, account: "acct-runtime", role: "owner" });
  const response = await fetch(`${runtime.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : null };
}
describe("npm start", () => {
  test("connections, records, watermarks and runs survive a restart; a run cut short resumes on the next start with nothing lost or duplicated", async () => {
    let runtime = await start();
    const created = await call(runtime, "POST", CONNECTIONS, { base_url: source.baseUrl, token: SOURCE_TOKEN, rate_limit: 50 });
    expect(created.status).toBe(201);
    const id = created.body.id as string;

    // Stopped while page 3 of /leads is in flight: pages 1 and 2 are committed (page 3 is asked for only after).
    const arrived = gate();
    const released = gate();
    holdLeads = { page: "3", arrived: arrived.open, released: released.opened };
    const run = await call(runtime, "POST", `${CONNECTIONS}/${id}/syncs`);
    expect(run.status).toBe(202);
    await arrived.opened;
    const stopping = runtime.stop();
    holdLeads = null;
    released.open();
    await stopping;

    runtime = await start();
    try {
      expect((await call(runtime, "GET", CONNECTIONS)).body.data.map((c: { id: string }) => c.id)).toContain(id);
      // The start resumed the run cut short: wait for that run's executions to end (a gate on the engine).
      const [resumed] = await runtime.service.sync.runs.list(id, { limit: 1 });
      expect(resumed?.id).not.toBe(run.body.id);
      await runSettled(runtime.service.sync.engine, runtime.service.sync.runs, id, resumed!.id);
      const finished = (await call(runtime, "GET", `${CONNECTIONS}/${id}/syncs`)).body.data as Array<{ status: string }>;
      expect(finished).toHaveLength(2);
      expect(finished.every((r) => r.status !== "running")).toBe(true);
      expect(finished[0]?.status).toBe("succeeded");
      let ids: string[] = [];
      let cursor: string | null = null;
      do {
        const page = await call(runtime, "GET", `${CONNECTIONS}/${id}/records/leads?limit=1000${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
        ids = ids.concat(page.body.data.map((lead: { id: string }) => lead.id));
        cursor = page.body.next_cursor;
      } while (cursor);
      expect(ids).toHaveLength(600);
      expect(new Set(ids).size).toBe(600);
    } finally {
      await runtime.stop();
    }
  }, 120_000);
});

/** Runs `npm start` as a user would (tsx on the entry), with a given environment. */
function runStart(env: Record<string, string>): Promise<{ code: number | null; stderr: string; stdout: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--import", "tsx", "bin/start.ts"], {
      env: childProcessEnv(env),
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
/** The line the user reads (Node's own warnings aside). */
const cannotStart = (stderr: string) => stderr.split("\n").filter((line) => line.startsWith("cannot start:"));

const REPO = resolve(import.meta.dirname, "../../..");

/** `npm start` as a user types it, in its own process group (npm, tsx, node, java) so the test can stop all of it. */
function spawnNpmStart(env: Record<string, string>) {
  const child = spawn("npm", ["start"], {
    cwd: REPO,
    env: childProcessEnv(env),
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  let stdout = "";
  let stderr = "";
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  /** Resolves with the start line once printed; rejects if the process exits first. */
  const startLine = new Promise<string>((resolve, reject) => {
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
      const line = stdout.split("\n").find((text) => text.startsWith("CRM integration service:"));
      if (line !== undefined) resolve(line);
    });
    child.stderr.on("data", (chunk) => (stderr += chunk));
    void exited.then((code) => reject(new Error(`npm start exited (${code}) before its start line: ${stderr}`)));
  });
  return {
    startLine,
    stop: async () => {
      if (child.pid !== undefined) process.kill(-child.pid, "SIGTERM");
      await exited;
    },
  };
}

/** Runs a printed shell command line as a user pasting it would, in the repo, without DATA_DIR in the environment. */
function runShell(command: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn("sh", ["-c", command], {
      cwd: REPO,
      env: { PATH: process.env["PATH"] ?? "", HOME: process.env["HOME"] ?? "" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    child.on("exit", (code) => resolve({ code, stdout, stderr }));
  });
}

describe("npm start with a custom DATA_DIR", () => {
  test("the start line prints the exact token command for that data directory, and the token it prints is accepted (200 on the list)", async () => {
    // A space and a quote: the printed command must quote the directory for the shell.
    const customDir = join(dataDir, "custom data's dir");
    const started = spawnNpmStart({ PORT: "0", DATA_DIR: customDir });
    try {
      const line = await started.startLine;
      const url = /API on (http:\/\/\S+\/api\/v1)/.exec(line)?.[1];
      const command = /get an owner token: (.*?) · data in/.exec(line)?.[1];
      expect(url, line).toBeDefined();
      expect(command).toBe(`DATA_DIR='${customDir.replaceAll("'", "'\\''")}' npm run --silent token -- --account ACC --role owner`);

      const minted = await runShell((command ?? "").replace("ACC", "acct-custom-dir"));
      expect(minted.code, minted.stderr).toBe(0);
      const token = minted.stdout.trim();
      const list = await fetch(`${url}/crm/custom/connections`, { headers: { authorization: `Bearer ${token}` } });
      expect(list.status).toBe(200);
      expect(await list.json()).toEqual({ data: [] });
    } finally {
      await started.stop();
    }
  }, 120_000);
});

describe("friendly failure", () => {
  let busy: Server;
  let busyPort: number;
  beforeAll(async () => {
    busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, "127.0.0.1", () => resolve()));
    busyPort = (busy.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((resolve) => busy.close(() => resolve())));

  test("a port in use: one line that says so and what to do, exit non-zero", async () => {
    const result = await runStart({ PORT: String(busyPort), DATA_DIR: join(dataDir, "busy") });
    expect(result.code).not.toBe(0);
    expect(cannotStart(result.stderr)).toEqual([expect.stringMatching(new RegExp(`port ${busyPort} .*in use.*set PORT`))]);
  });

  test("Java missing: one line that says so and what to do, exit non-zero", async () => {
    // A PATH with node and nothing else (node and java may share /usr/bin).
    const bin = join(dataDir, "node-only-bin");
    await mkdir(bin, { recursive: true });
    await symlink(process.execPath, join(bin, "node")).catch(() => {});
    const result = await runStart({ PORT: "0", DATA_DIR: join(dataDir, "nojava"), PATH: bin });
    expect(result.code).not.toBe(0);
    expect(cannotStart(result.stderr)).toEqual([expect.stringMatching(/Java .*DynamoDB Local needs Java 17\+/)]);
  });

  test("a corrupt data directory: one line that says so and what to do, exit non-zero", async () => {
    const corrupt = join(dataDir, "corrupt");
    await mkdir(join(corrupt, "dynamodb"), { recursive: true });
    await writeFile(join(corrupt, "dynamodb", "shared-local-instance.db"), "this is not a database");
    const result = await runStart({ PORT: "0", DATA_DIR: corrupt });
    expect(result.code).not.toBe(0);
    expect(cannotStart(result.stderr)).toEqual([expect.stringMatching(/data directory is corrupt.*move .* away/)]);
  });

  test("a second npm start on a DATA_DIR in use: one line that says so, naming the running one's pid, exit non-zero; the first runs on", async () => {
    const shared = join(dataDir, "in-use");
    const first = await startLocalRuntime(readLocalRuntimeConfig({ DATA_DIR: shared, PORT: "0", SCHEDULE: "off" }), createMemoryLogger());
    try {
      const second = await runStart({ PORT: "0", DATA_DIR: shared });
      expect(second.code).not.toBe(0);
      expect(cannotStart(second.stderr)).toEqual([`cannot start: DATA_DIR ${shared} is in use by another npm start (pid ${process.pid}): stop that one first, or set DATA_DIR to another directory`]);
      expect(second.stdout).not.toContain("CRM integration service:");
      expect((await fetch(`${first.url}/api/v1/openapi.json`)).status).toBe(200);
    } finally {
      await first.stop();
    }
  }, 120_000);

  test("a bad setting: one line naming it, exit non-zero", async () => {
    const result = await runStart({ PORT: "0", DATA_DIR: join(dataDir, "bad"), TIME_SCALE: "fast" });
    expect(result.code).not.toBe(0);
    expect(cannotStart(result.stderr)).toEqual([expect.stringMatching(/TIME_SCALE must be a number/)]);
  });
});
