import { execFile } from "node:child_process";
import { existsSync, openSync, readSync, closeSync, statSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { StartupError } from "./local-runtime-config";

/** DynamoDB Local 1.25 needs Java 17 or newer. */
export const MIN_JAVA_MAJOR = 17;

/** Java on PATH and new enough, or a one-line StartupError saying what to do. */
export async function checkJava(): Promise<void> {
  const output = await new Promise<string | null>((resolve) => {
    execFile("java", ["-version"], (error, stdout, stderr) => resolve(error ? null : `${stdout}${stderr}`));
  });
  if (output === null) {
    throw new StartupError(`Java is not installed or not on PATH: DynamoDB Local needs Java ${MIN_JAVA_MAJOR}+ (e.g. apt-get install openjdk-17-jre-headless)`);
  }
  const match = /version "(\d+)(?:\.(\d+))?/.exec(output);
  const major = match ? (match[1] === "1" ? Number(match[2]) : Number(match[1])) : NaN;
  if (!(major >= MIN_JAVA_MAJOR)) {
    throw new StartupError(`Java ${Number.isNaN(major) ? "of an unknown version" : major} is too old: DynamoDB Local needs Java ${MIN_JAVA_MAJOR}+ on PATH`);
  }
}

/** The API port is free, or a one-line StartupError. Checked before anything heavy starts. */
export async function checkPortFree(port: number, host: string): Promise<void> {
  if (port === 0) return;
  await new Promise<void>((resolve, reject) => {
    const probe = createServer();
    probe.once("error", (error: NodeJS.ErrnoException) =>
      reject(
        error.code === "EADDRINUSE"
          ? new StartupError(`port ${port} on ${host} is already in use: stop what is using it or set PORT to another port`)
          : new StartupError(`cannot listen on ${host}:${port} (${error.code ?? error.message}): set HOST/PORT`),
      ),
    );
    probe.listen(port, host, () => probe.close(() => resolve()));
  });
}

/** SQLite's file header: DynamoDB Local keeps its data in one SQLite file under -dbPath. */
const SQLITE_HEADER = "SQLite format 3\u0000";

/** The data directory holds what the runtime wrote before, or a one-line StartupError naming what is wrong. */
export function checkDataDir(dataDir: string, dynamoDbDir: string): void {
  if (existsSync(dataDir) && !statSync(dataDir).isDirectory()) {
    throw new StartupError(`DATA_DIR ${dataDir} is a file, not a directory: move it away or set DATA_DIR to another path`);
  }
  const database = join(dynamoDbDir, "shared-local-instance.db");
  if (!existsSync(database)) return;
  const fd = openSync(database, "r");
  const header = Buffer.alloc(SQLITE_HEADER.length);
  const read = readSync(fd, header, 0, header.length, 0);
  closeSync(fd);
  if (read > 0 && header.toString("latin1") !== SQLITE_HEADER) {
    throw new StartupError(`the data directory is corrupt (${database} is not a DynamoDB Local database): move ${dataDir} away to start fresh, or restore it from a backup`);
  }
}
