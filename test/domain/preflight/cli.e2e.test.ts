import { fileURLToPath } from "node:url";
import * as v from "valibot";
import { beforeAll, describe, expect, test } from "vitest";
import { ReportSchema } from "../../../lambdas/domain/preflight/report";
import { PREFLIGHT_TOKEN, preflightSourcesOfFile, type PreflightSource, type SourceKnobs } from "../../support/preflight-source";
import { startSourceServer } from "../../support/source-server";
import { runCommand, type CommandOutcome } from "../../support/run-command";

/**
 * The command itself, spawned as a customer runs it: --help, npx from the
 * checkout, exit 0 with a report on stdout, exit 2 with one line on stderr, and
 * the token never on either. Every format and argument rule runs in-process
 * (test/bin/preflight/preflight-command.test.ts).
 */

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));


function run(command: string, args: readonly string[], env: Record<string, string> = {}): Promise<CommandOutcome> {
  return runCommand(command, args, { cwd: ROOT, env: { ...process.env, ...env } });
}

const preflight = (args: readonly string[], env: Record<string, string> = {}) =>
  run(process.execPath, ["--import", "tsx", "bin/preflight.ts", ...args], env);

function expectNoToken(outcome: CommandOutcome): void {
  expect(outcome.stdout).not.toContain(PREFLIGHT_TOKEN);
  expect(outcome.stderr).not.toContain(PREFLIGHT_TOKEN);
}

const source = preflightSourcesOfFile({ sizes: { contacts: 120, leads: 20 } });


describe("crm-preflight", () => {
  let conforming: PreflightSource;
  beforeAll(async () => {
    conforming = await source({});
  });

  test("--help: usage, exit 0, says SOURCE_TOKEN keeps the token out of shell history", async () => {
    const outcome = await preflight(["--help"]);
    expect(outcome.code).toBe(0);
    expect(outcome.stdout).toMatch(/Usage: crm-preflight <base_url>/);
    expect(outcome.stdout).toMatch(/SOURCE_TOKEN[\s\S]*shell history/);
    expect(outcome.stdout).toMatch(/--rate N[\s\S]*--format[\s\S]*--max-pages N/);
  });

  test("npx crm-preflight --help works from the checkout (package.json bin)", async () => {
    const outcome = await run("npx", ["--no-install", "crm-preflight", "--help"]);
    expect(outcome.code).toBe(0);
    expect(outcome.stdout).toMatch(/Usage: crm-preflight/);
  });

  test("--format json, conforming source, token from SOURCE_TOKEN: exit 0, stdout is exactly one report object", async () => {
    const outcome = await preflight([conforming.baseUrl, "--format", "json", "--rate", "1000"], { SOURCE_TOKEN: PREFLIGHT_TOKEN });
    expect(outcome.code).toBe(0);
    const report = v.parse(ReportSchema, JSON.parse(outcome.stdout));
    expect(Object.keys(JSON.parse(outcome.stdout))).toEqual(["base_url", "conforms", "findings", "checked"]);
    expect(report).toMatchObject({ base_url: conforming.baseUrl, conforms: true, findings: [] });
    expect(outcome.stderr).toBe("");
    expectNoToken(outcome);
  });

  test("exit 2, one line on stderr, nothing on stdout: connection refused", async () => {
    const closed = await startSourceServer(() => ({ json: {} }));
    await closed.close();
    const outcome = await preflight([closed.baseUrl, "--format", "json"], { SOURCE_TOKEN: PREFLIGHT_TOKEN });
    expect(outcome.code).toBe(2);
    expect(outcome.stdout).toBe("");
    expect(outcome.stderr).toMatch(/^crm-preflight: connection refused by http:\/\/127\.0\.0\.1:\d+: start the source or fix the base URL\n$/);
    expectNoToken(outcome);
  });

});
