import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { childProcessEnv } from "../support/child-process-env";
import { gate } from "../support/gate";

/**
 * `npm run demo`: `-- --help` prints its usage and starts nothing; Ctrl-C (SIGINT) stops the service, the source
 * and DynamoDB Local and removes the demo's data folder. The interrupt is sent once the demo has printed where its
 * data is (a gate on its output), never after a sleep.
 */
const REPO = resolve(import.meta.dirname, "../..");
let temp: string;
beforeAll(async () => {
  temp = await mkdtemp(join(tmpdir(), "crm-demo-test-"));
});
afterAll(async () => rm(temp, { recursive: true, force: true }));
/** The demo's data folders left in the temporary directory (tsx keeps its own cache there too). */
const demoFolders = async () => (await readdir(temp)).filter((name) => name.startsWith("crm-demo-"));

interface Demo {
  readonly pid: number;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  output(): string;
  /** Opens when the output has matched `pattern`; resolves with the match. */
  when(pattern: RegExp): Promise<RegExpExecArray>;
}

function startDemo(command: string, args: string[], env: Record<string, string> = {}): Demo {
  const child = spawn(command, args, { cwd: REPO, env: childProcessEnv({ TMPDIR: temp, ...env }), stdio: ["ignore", "pipe", "pipe"], detached: true });
  let output = "";
  const waiting: { pattern: RegExp; open: (match: RegExpExecArray) => void }[] = [];
  const onData = (chunk: Buffer) => {
    output += chunk.toString("utf8");
    for (const each of [...waiting]) {
      const match = each.pattern.exec(output);
      if (match !== null) {
        waiting.splice(waiting.indexOf(each), 1);
        each.open(match);
      }
    }
  };
  child.stdout.on("data", onData);
  child.stderr.on("data", onData);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) => child.once("exit", (code, signal) => done({ code, signal })));
  return {
    pid: child.pid!,
    exited,
    output: () => output,
    when(pattern) {
      const matched = gate<RegExpExecArray>();
      const already = pattern.exec(output);
      if (already !== null) matched.open(already);
      else waiting.push({ pattern, open: matched.open });
      return Promise.race([matched.opened, exited.then(() => Promise.reject(new Error(`the demo exited before ${pattern}:\n${output}`)))]);
    },
  };
}

describe("npm run demo", () => {
  test("`npm run demo -- --help` prints its usage and exits 0 without starting anything", async () => {
    const demo = startDemo("npm", ["run", "demo", "--", "--help"]);
    const { code } = await demo.exited;
    expect(code, demo.output()).toBe(0);
    expect(demo.output()).toContain("Usage: npm run demo [-- --help]");
    expect(demo.output()).toContain("Ctrl-C stops everything and removes the");
    expect(demo.output()).not.toContain("Service:");
    expect(await demoFolders()).toEqual([]);
  }, 60_000);

  test("an unknown argument: the usage on stderr, exit 2, nothing started", async () => {
    const demo = startDemo(process.execPath, ["--import", "tsx", "bin/demo.ts", "--bogus"]);
    const { code } = await demo.exited;
    expect(code).toBe(2);
    expect(demo.output()).toMatch(/^unknown argument --bogus\n\nUsage: npm run demo/);
    expect(await demoFolders()).toEqual([]);
  }, 60_000);

  test("Ctrl-C during the sync stops everything and removes the data folder it said it would", async () => {
    const demo = startDemo(process.execPath, ["--import", "tsx", "bin/demo.ts"]);
    const [, dataDir] = await demo.when(/\(data in (\S+), removed at the end or on Ctrl-C\)/);
    await demo.when(/Sync run: +\S+/);
    expect(existsSync(dataDir!)).toBe(true);
    process.kill(demo.pid, "SIGINT");
    const { code } = await demo.exited;
    expect(code, demo.output()).toBe(130);
    expect(demo.output()).toContain(`Interrupted: stopping and removing ${dataDir}`);
    expect(existsSync(dataDir!)).toBe(false);
    expect(await demoFolders()).toEqual([]);
  }, 120_000);
});
