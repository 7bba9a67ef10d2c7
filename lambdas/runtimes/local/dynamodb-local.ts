import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { dirname, join, resolve } from "node:path";
import { DynamoDBClient, ListTablesCommand } from "@aws-sdk/client-dynamodb";

/**
 * DynamoDB Local (the real engine, as a Java process) for the tests and the
 * local runtime. The jar ships in the npm package amplify-dynamodb-simulator;
 * `java` (17+) must be on PATH.
 */

export interface DynamoDbLocal {
  /** e.g. `http://127.0.0.1:8123` */
  readonly endpoint: string;
  readonly port: number;
  /** SIGTERM, then SIGKILL after a grace period. Safe to call twice. */
  stop(): Promise<void>;
}

export interface DynamoDbLocalOptions {
  /** Persist tables under this directory (created if missing); in memory when absent. */
  readonly dataDir?: string;
  /** Fixed port (refused when already in use); a free port is picked when absent. The endpoint is always 127.0.0.1. */
  readonly port?: number;
  /** JVM options for this engine only (JAVA_TOOL_OPTIONS of its process); the environment's when absent. */
  readonly jvmOptions?: string;
}

/** How long the engine may take to answer its first ListTables. */
const START_TIMEOUT_MS = 30_000;
const POLL_INTERVAL_MS = 150;
/** Grace period between SIGTERM and SIGKILL in stop(). */
const STOP_GRACE_MS = 4_000;
/** Attempts when a picked free port is taken before Java binds it. */
const BIND_RACE_ATTEMPTS = 3;
/** Characters of the child's output kept for error messages. */
const OUTPUT_TAIL_CHARS = 4_000;

/**
 * The engine's own temporary folder (java.io.tmpdir): DynamoDB Local copies its native SQLite library (900 kB) into
 * it at every start and deletes the copy only when it exits cleanly, so a killed engine's copy stays. With a data
 * directory it is this folder inside it, emptied at the next start; in memory, the engine's scratch folder.
 */
export const ENGINE_TMP_DIR = "java-tmp";

const JAVA_MISSING = "DynamoDB Local needs Java 17+ on PATH";
const BIND_FAILURE = /Failed to bind|BindException|Address already in use/i;

export async function startDynamoDbLocal(options: DynamoDbLocalOptions = {}): Promise<DynamoDbLocal> {
  const dataDir = options.dataDir === undefined ? undefined : resolve(options.dataDir);
  if (dataDir !== undefined) mkdirSync(dataDir, { recursive: true });

  for (let attempt = 1; ; attempt += 1) {
    const port = options.port ?? (await pickFreePort());
    try {
      return await launch(port, dataDir, options.jvmOptions);
    } catch (error) {
      const raced = error instanceof PortInUseError && options.port === undefined && attempt < BIND_RACE_ATTEMPTS;
      if (!raced) throw error;
    }
  }
}

class PortInUseError extends Error {}

function emulatorDir(): string {
  const packageJson = createRequire(import.meta.url).resolve("amplify-dynamodb-simulator/package.json");
  return join(dirname(packageJson), "emulator");
}

function javaArgs(port: number, dataDir: string | undefined, tmpDir: string): string[] {
  const dir = emulatorDir();
  return [
    `-Djava.io.tmpdir=${tmpDir}`,
    `-Djava.library.path=${join(dir, "DynamoDBLocal_lib")}`,
    "-jar",
    join(dir, "DynamoDBLocal.jar"),
    "-port",
    String(port),
    "-disableTelemetry",
    // One database for every region and credential, so any client sees the same tables.
    "-sharedDb",
    ...(dataDir === undefined ? ["-inMemory"] : ["-dbPath", dataDir]),
  ];
}

/** Where the engine runs and keeps its temporary files; `scratchDir` (in memory only) is removed when it stops. */
function engineFolders(dataDir: string | undefined): { readonly cwd: string; readonly tmpDir: string; readonly scratchDir?: string } {
  if (dataDir === undefined) {
    // DynamoDB Local writes dynamodb-local-metadata.json into its working directory: keep it out of the caller's.
    const scratchDir = mkdtempSync(join(tmpdir(), "dynamodb-local-"));
    return { cwd: scratchDir, tmpDir: scratchDir, scratchDir };
  }
  const tmpDir = join(dataDir, ENGINE_TMP_DIR);
  // What a killed engine left: one engine at a time runs on a data directory (its caller holds the directory).
  rmSync(tmpDir, { recursive: true, force: true });
  mkdirSync(tmpDir);
  return { cwd: dataDir, tmpDir };
}

async function launch(port: number, dataDir: string | undefined, jvmOptions: string | undefined): Promise<DynamoDbLocal> {
  // Another server on the port would answer our readiness probe: refuse it up front.
  await assertPortFree(port);
  const { cwd, tmpDir, scratchDir } = engineFolders(dataDir);
  const cleanUp = () => {
    if (scratchDir !== undefined) rmSync(scratchDir, { recursive: true, force: true });
  };
  const env = jvmOptions === undefined ? process.env : { ...process.env, JAVA_TOOL_OPTIONS: jvmOptions };
  const child = spawn("java", javaArgs(port, dataDir, tmpDir), { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
  const endpoint = `http://127.0.0.1:${port}`;

  let output = "";
  let reportFailure: (error: Error) => void = () => {};
  const failed = new Promise<Error>((resolveFailure) => {
    reportFailure = resolveFailure;
  });
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString("utf8")).slice(-OUTPUT_TAIL_CHARS);
    // The JVM stays alive after Jetty fails to bind, so the output is the only signal.
    if (BIND_FAILURE.test(output)) {
      reportFailure(new PortInUseError(`DynamoDB Local could not bind port ${port}. Output:\n${output}`));
    }
  };
  // Always drained, so a full pipe never blocks the engine.
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  child.once("error", (error: NodeJS.ErrnoException) => {
    reportFailure(
      error.code === "ENOENT"
        ? new Error(`${JAVA_MISSING} (spawn java: ENOENT)`, { cause: error })
        : new Error(`${JAVA_MISSING}; starting it failed: ${error.message}`, { cause: error }),
    );
  });
  child.once("exit", (code, signal) => {
    reportFailure(
      new Error(
        `DynamoDB Local exited before it was ready (code ${code}, signal ${signal}). ${JAVA_MISSING}. Output:\n${output}`,
      ),
    );
  });

  const orphanGuard = guardAgainstOrphans(child, cleanUp);
  const probe = new AbortController();
  try {
    await Promise.race([waitUntilReady(endpoint, probe.signal), failed.then((error) => Promise.reject(error))]);
  } catch (error) {
    probe.abort();
    await terminate(child);
    orphanGuard.release();
    cleanUp();
    if (error instanceof ReadyTimeoutError) {
      throw new Error(`DynamoDB Local did not answer ListTables within ${START_TIMEOUT_MS} ms. Output:\n${output}`);
    }
    throw error;
  }

  let stopping: Promise<void> | undefined;
  return {
    endpoint,
    port,
    stop() {
      stopping ??= terminate(child).finally(() => {
        orphanGuard.release();
        cleanUp();
      });
      return stopping;
    },
  };
}

class ReadyTimeoutError extends Error {}

/** How long one readiness poll may wait for its answer. */
const READY_REQUEST_TIMEOUT_MS = 10_000;

/** Polls ListTables until it answers; gives up at the deadline or when aborted (the child failed). */
async function waitUntilReady(endpoint: string, abort: AbortSignal): Promise<void> {
  const client = new DynamoDBClient({
    endpoint,
    region: "us-east-1",
    credentials: { accessKeyId: "local", secretAccessKey: "local" },
    maxAttempts: 1,
    // A cold JVM may take seconds to answer its first request: that is waiting, not a warning. A request still
    // unanswered after READY_REQUEST_TIMEOUT_MS is ended as an error (the SDK would only warn) and polled again.
    requestHandler: { connectionTimeout: 1_000, requestTimeout: READY_REQUEST_TIMEOUT_MS, throwOnRequestTimeout: true },
  });
  const deadline = Date.now() + START_TIMEOUT_MS;
  try {
    for (;;) {
      try {
        await client.send(new ListTablesCommand({ Limit: 1 }), { abortSignal: abort });
        return;
      } catch {
        if (abort.aborted) return;
        if (Date.now() > deadline) throw new ReadyTimeoutError();
        await sleep(POLL_INTERVAL_MS);
      }
    }
  } finally {
    client.destroy();
  }
}

/** SIGTERM, then SIGKILL when the process has not exited after the grace period. */
async function terminate(child: ChildProcess): Promise<void> {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  const exit = new Promise<void>((resolveExit) => child.once("exit", () => resolveExit()));
  child.kill("SIGTERM");
  const graceful = await Promise.race([exit.then(() => true), sleep(STOP_GRACE_MS).then(() => false)]);
  if (!graceful) {
    child.kill("SIGKILL");
    await exit;
  }
}

/**
 * Kills the Java child when this Node process exits or is stopped by a
 * signal, so that no engine outlives its parent.
 */
function guardAgainstOrphans(child: ChildProcess, cleanUp: () => void): { release(): void } {
  const killNow = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    cleanUp();
  };
  const signals = ["SIGINT", "SIGTERM", "SIGHUP"] as const;
  const onSignal = (signal: NodeJS.Signals) => {
    killNow();
    release();
    // Nobody else handles the signal: restore its default effect (terminate).
    if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
  };
  const release = () => {
    process.off("exit", killNow);
    for (const signal of signals) process.off(signal, onSignal);
  };
  process.on("exit", killNow);
  for (const signal of signals) process.on(signal, onSignal);
  return { release };
}

/** A port nobody listens on, on any interface (DynamoDB Local binds 0.0.0.0). */
async function pickFreePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.unref();
    server.once("error", reject);
    server.listen(0, () => {
      const address = server.address();
      if (address === null || typeof address === "string") {
        server.close();
        reject(new Error("could not read the port of a listening socket"));
        return;
      }
      server.close(() => resolvePort(address.port));
    });
  });
}

async function assertPortFree(port: number): Promise<void> {
  await new Promise<void>((resolveFree, reject) => {
    const server = createServer();
    server.unref();
    server.once("error", (error: NodeJS.ErrnoException) => {
      reject(
        error.code === "EADDRINUSE"
          ? new PortInUseError(`port ${port} is already in use; DynamoDB Local cannot listen on it`, { cause: error })
          : error,
      );
    });
    server.listen(port, () => server.close(() => resolveFree()));
  });
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolveSleep) => setTimeout(resolveSleep, ms));
}
