import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { tokenCommand } from "../../bin/token/token-command";
import {
  LOCAL_AUDIENCE,
  LOCAL_ISSUER,
  loadOrCreateSigningKey,
  verifySessionToken,
} from "../../lambdas/runtimes/local/local-token-issuer";

const exec = promisify(execFile);
const REPO = resolve(import.meta.dirname, "../..");
const JWT = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

async function token(args: string[], env: Record<string, string> = {}): Promise<Run> {
  try {
    // node --import tsx is what `npm run token` (tsx bin/token.ts) runs, without npx's own start-up per call.
    const { stdout, stderr } = await exec(process.execPath, ["--import", "tsx", "bin/token.ts", ...args], {
      cwd: REPO,
      env: { ...process.env, ...env },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? -1, stdout: failed.stdout ?? "", stderr: failed.stderr ?? "" };
  }
}

/** The same command in this process (bin/token/token-command.ts), its output captured. */
async function tokenInProcess(args: string[]): Promise<Run> {
  let stdout = "";
  let stderr = "";
  const code = await tokenCommand(args, { env: {}, stdout: (text) => (stdout += text), stderr: (text) => (stderr += text) });
  return { code, stdout, stderr };
}

let root: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "token-script-"));
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe("npm run token", () => {
  test("prints exactly one JWT line and nothing else; the local runtime's key verifies it", async () => {
    const dataDir = join(root, "data");
    const run = await token(["--account", "acme", "--role", "owner", "--data-dir", dataDir]);
    expect(run.code).toBe(0);
    expect(run.stdout.endsWith("\n")).toBe(true);
    const lines = run.stdout.split("\n");
    expect(lines).toHaveLength(2);
    expect(lines[1]).toBe("");
    expect(lines[0]).toMatch(JWT);

    const key = await loadOrCreateSigningKey(dataDir);
    const claims = await verifySessionToken(lines[0], { issuer: LOCAL_ISSUER, audience: LOCAL_AUDIENCE, key: key.publicKey });
    expect(claims).toMatchObject({ business_account_id: "acme", role: "owner", sub: "local-owner" });
    expect(claims.exp! - claims.iat!).toBe(12 * 60 * 60);
  });

  test("--user, --ttl and the DATA_DIR environment variable are honoured", async () => {
    const dataDir = join(root, "from-env");
    const run = await token(["--account", "acme", "--role", "ROP", "--user", "rop-1", "--ttl", "600"], { DATA_DIR: dataDir });
    expect(run.code).toBe(0);
    const key = await loadOrCreateSigningKey(dataDir);
    const claims = await verifySessionToken(run.stdout.trim(), { issuer: LOCAL_ISSUER, audience: LOCAL_AUDIENCE, key: key.publicKey });
    expect(claims).toMatchObject({ business_account_id: "acme", role: "ROP", sub: "rop-1" });
    expect(claims.exp! - claims.iat!).toBe(600);
  });

  test("--email adds the email claim, trimmed, which the API reads into the session", async () => {
    const dataDir = join(root, "email");
    const run = await tokenInProcess(["--account", "acme", "--role", "MOP", "--user", "mop-1", "--email", " anna@example.com ", "--data-dir", dataDir]);
    expect(run.code).toBe(0);
    const key = await loadOrCreateSigningKey(dataDir);
    const claims = await verifySessionToken(run.stdout.trim(), { issuer: LOCAL_ISSUER, audience: LOCAL_AUDIENCE, key: key.publicKey });
    expect(claims).toMatchObject({ role: "MOP", sub: "mop-1", email: "anna@example.com" });
    const without = await tokenInProcess(["--account", "acme", "--role", "MOP", "--data-dir", dataDir]);
    expect(await verifySessionToken(without.stdout.trim(), { issuer: LOCAL_ISSUER, audience: LOCAL_AUDIENCE, key: key.publicKey })).not.toHaveProperty("email");
  });

  const USAGE_LINE = "usage: npm run --silent token -- --account ACC --role owner|ROP|MOP [--user U] [--email E] [--ttl SECONDS] [--data-dir DIR]";
  const expectUsageFailure = (run: Run, args: readonly string[]) => {
    expect({ args, code: run.code }).toEqual({ args, code: 2 });
    expect(run.stdout).toBe("");
    expect(run.stderr.split("\n").filter((line) => line.startsWith("usage: "))).toEqual([USAGE_LINE]);
  };

  test("bad arguments: exit 2, nothing on stdout, a message and a one-line usage on stderr", async () => {
    const dataDir = join(root, "bad");
    const cases = [
      [],
      ["--role", "owner"],
      ["--account", "acme"],
      ["--account", "acme", "--role", "admin"],
      ["--account", "acme", "--role", "Owner"],
      ["--account", "", "--role", "owner"],
      ["--account", "acme", "--role", "owner", "--ttl", "0"],
      ["--account", "acme", "--role", "owner", "--ttl", "12h"],
      ["--account", "acme", "--role", "owner", "--bogus"],
      ["--account", "acme", "--role", "owner", "extra"],
      ["--account"],
      ["--account", "acme", "--role", "MOP", "--email", ""],
      ["--account", "acme", "--role", "MOP", "--email", `${"x".repeat(250)}@b.cde`],
      ["--account", "acme", "--role", "MOP", "--email", "a@b.c\nbcc@evil"],
    ];
    // Every case through the command itself (one process would cost a second of start-up each)...
    for (const args of cases) expectUsageFailure(await tokenInProcess([...args, "--data-dir", dataDir]), args);
    // ...and one through the script, as `npm run token` runs it: the exit status and the streams are the process's own.
    expectUsageFailure(await token(["--account", "acme", "--role", "admin", "--data-dir", dataDir]), ["--role", "admin"]);
  });
});
