import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from "node:fs";
import { join } from "node:path";
import { StartupError } from "./local-runtime-config";

/** The file in DATA_DIR that says which process runs on it: its pid, one line. */
export const DATA_DIR_LOCK_FILE = "runtime.pid";

/** Whether a process with this pid exists: signal 0 checks without sending anything (EPERM: it exists, not ours). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Takes DATA_DIR for this process: two runtimes (two schedulers, two DynamoDB Locals) on one data directory would
 * each run the other's connections. The lock file is created exclusively with our pid; one left by a process that
 * is gone (killed, crashed) is stale and taken over; one of a live process is a one-line StartupError. Returns
 * the release, which removes the file only while it is still ours.
 */
export function lockDataDir(dataDir: string, pid: number = process.pid, alive: (pid: number) => boolean = processAlive): () => void {
  const path = join(dataDir, DATA_DIR_LOCK_FILE);
  for (let attempt = 0; ; attempt++) {
    try {
      const fd = openSync(path, "wx", 0o600);
      writeSync(fd, `${pid}\n`);
      closeSync(fd);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST" || attempt > 0) throw error;
      const holder = Number.parseInt(readText(path), 10);
      if (Number.isInteger(holder) && holder > 0 && holder !== pid && alive(holder)) {
        throw new StartupError(`DATA_DIR ${dataDir} is in use by another npm start (pid ${holder}): stop that one first, or set DATA_DIR to another directory`);
      }
      // Stale: its process is gone (or the file is not a pid). Taken over once; a second EEXIST means a race lost.
      unlinkSync(path);
    }
  }
  return () => {
    if (readText(path).trim() === String(pid)) unlinkSync(path);
  };
}

function readText(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return "";
  }
}
