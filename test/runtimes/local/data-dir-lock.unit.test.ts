import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { DATA_DIR_LOCK_FILE, lockDataDir, processAlive } from "../../../lambdas/runtimes/local/data-dir-lock";
import { StartupError } from "../../../lambdas/runtimes/local/local-runtime-config";

/** One runtime per DATA_DIR: the lock file holds the pid; a live holder refuses the second start, a dead one is stale. */
const dirs: string[] = [];
const dataDir = () => {
  const dir = mkdtempSync(join(tmpdir(), "crm-lock-"));
  dirs.push(dir);
  return dir;
};
afterEach(() => dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** A pid no process has: from the top of Linux's pid range down, the first that signal 0 finds empty. */
const deadPid = (): number => {
  for (let pid = 4_194_303; pid > 1; pid--) if (!processAlive(pid)) return pid;
  throw new Error("every pid is taken");
};

describe("the DATA_DIR lock", () => {
  test("the first start takes it: the lock file holds its pid, and its release removes the file", () => {
    const dir = dataDir();
    const release = lockDataDir(dir, 4242, () => false);
    expect(readFileSync(join(dir, DATA_DIR_LOCK_FILE), "utf8")).toBe("4242\n");
    release();
    expect(existsSync(join(dir, DATA_DIR_LOCK_FILE))).toBe(false);
  });

  test("a second start while the first one's pid is alive stops with one line naming the directory, the pid and what to do", () => {
    const dir = dataDir();
    lockDataDir(dir, process.pid);
    const second = () => lockDataDir(dir, process.pid + 1);
    expect(second).toThrow(StartupError);
    expect(second).toThrow(`DATA_DIR ${dir} is in use by another npm start (pid ${process.pid}): stop that one first, or set DATA_DIR to another directory`);
    expect(readFileSync(join(dir, DATA_DIR_LOCK_FILE), "utf8")).toBe(`${process.pid}\n`);
  });

  test("a lock left by a process that is gone (killed, crashed) is stale: the next start takes it over", () => {
    const dir = dataDir();
    const gone = deadPid();
    expect(processAlive(gone)).toBe(false);
    writeFileSync(join(dir, DATA_DIR_LOCK_FILE), `${gone}\n`);
    lockDataDir(dir, process.pid);
    expect(readFileSync(join(dir, DATA_DIR_LOCK_FILE), "utf8")).toBe(`${process.pid}\n`);
  });

  test("a lock file that holds no pid is stale too; a release never removes another process's lock", () => {
    const dir = dataDir();
    writeFileSync(join(dir, DATA_DIR_LOCK_FILE), "not a pid");
    const release = lockDataDir(dir, 4242, () => true);
    writeFileSync(join(dir, DATA_DIR_LOCK_FILE), "5151\n");
    release();
    expect(readFileSync(join(dir, DATA_DIR_LOCK_FILE), "utf8")).toBe("5151\n");
  });
});
