import * as v from "valibot";
import { beforeAll, describe, expect, test } from "vitest";
import { runPreflightCommand } from "../../../bin/preflight/preflight-command";
import { ReportSchema } from "../../../lambdas/domain/preflight/report";
import { PREFLIGHT_TOKEN, preflightSourcesOfFile, type PreflightSource, type SourceKnobs } from "../../support/preflight-source";

/**
 * crm-preflight's formats, exit statuses and argument rules, run in-process
 * with its streams captured (test/domain/preflight/cli.e2e.test.ts spawns it as a
 * customer runs it). The token never reaches stdout or stderr.
 */

interface Outcome {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** The command with these arguments and only this environment (none of the test process's own). */
async function preflight(args: readonly string[], env: Record<string, string> = {}): Promise<Outcome> {
  let stdout = "";
  let stderr = "";
  const code = await runPreflightCommand(args, env, { stdout: { write: (text) => (stdout += text) }, stderr: { write: (text) => (stderr += text) } });
  return { code, stdout, stderr };
}

function expectNoToken(outcome: Outcome): void {
  expect(outcome.stdout).not.toContain(PREFLIGHT_TOKEN);
  expect(outcome.stderr).not.toContain(PREFLIGHT_TOKEN);
}

const source = preflightSourcesOfFile({ sizes: { contacts: 120, leads: 20 } });

/** One error (a record on two pages of /contacts) and one warning whose value is the token, so it must be redacted. */
const BROKEN: SourceKnobs = {
  duplicateRecord: "contacts",
  patches: [{ entity: "leads", index: 3, overrides: { closed_at: PREFLIGHT_TOKEN } }],
};

describe("crm-preflight, in-process", () => {
  let conforming: PreflightSource;
  let broken: PreflightSource;
  beforeAll(async () => {
    conforming = await source({});
    broken = await source(BROKEN);
  });

  test("--format json, broken source, --token: exit 1, the error and the warning, the token redacted", async () => {
    const outcome = await preflight([broken.baseUrl, "--token", PREFLIGHT_TOKEN, "--format=json", "--rate", "1000"]);
    expect(outcome.code).toBe(1);
    const report = v.parse(ReportSchema, JSON.parse(outcome.stdout));
    expect(report.conforms).toBe(false);
    expect(report.findings.map((f) => [f.rule, f.severity, f.endpoint])).toEqual([
      ["paging.no-duplicate-record", "error", "/contacts"],
      ["record.timestamp-format", "warning", "/leads"],
    ]);
    expect(report.findings[1]!.detail).toContain('closed_at is "[redacted]"');
    expect(report.findings[0]!.request).toBe(`GET ${broken.baseUrl}/contacts?limit=100&page=2&updated_since=1970-01-01T00%3A00%3A00%2B00%3A00`);
    expectNoToken(outcome);
  });

  test("--format text (default): findings grouped by endpoint, rule id and fix on each line, a summary line", async () => {
    const outcome = await preflight([broken.baseUrl, "--rate", "1000"], { SOURCE_TOKEN: PREFLIGHT_TOKEN });
    expect(outcome.code).toBe(1);
    const lines = outcome.stdout.trimEnd().split("\n");
    expect(lines[0]).toBe(`Preflight of ${broken.baseUrl}`);
    expect(lines).toContain("/contacts");
    expect(lines).toContain("/leads");
    expect(outcome.stdout).toMatch(/^ {2}ERROR {3}paging\.no-duplicate-record: record contact-100 came on page 1 and again on page 2: page over a stable order/m);
    expect(outcome.stdout).toMatch(/^ {2}WARNING record\.timestamp-format: /m);
    expect(lines.at(-1)).toMatch(/^DOES NOT CONFORM: 1 error\(s\), 1 warning\(s\), \d+ rules checked$/);
    expectNoToken(outcome);
  });

  test("--format junit: one testcase per rule and endpoint, a failure per error, the warning in system-out", async () => {
    const outcome = await preflight([broken.baseUrl, "--format", "junit", "--rate", "1000"], { SOURCE_TOKEN: PREFLIGHT_TOKEN });
    expect(outcome.code).toBe(1);
    const xml = outcome.stdout;
    expect(xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="crm-preflight"')).toBe(true);
    const cases = [...xml.matchAll(/<testcase classname="([^"]+)" name="([^"]+)">/g)].map((m) => `${m[1]} ${m[2]}`);
    expect(new Set(cases).size).toBe(cases.length);
    expect(cases).toContain("preflight.contacts paging.no-duplicate-record");
    expect(cases).toContain("preflight.leads paging.no-duplicate-record");
    expect(cases).toContain("preflight.pipelines auth.wrong-token-401");
    expect(xml.match(/<failure /g)).toHaveLength(1);
    expect(xml).toMatch(/<testcase classname="preflight\.contacts" name="paging\.no-duplicate-record">\s*<failure type="paging\.no-duplicate-record"/);
    expect(xml).toMatch(/<system-out>WARNING .*closed_at/);
    expect(xml).toMatch(new RegExp(`<testsuites name="crm-preflight" tests="${cases.length}" failures="1">`));
    expectNoToken(outcome);
  });

  test("--format text on a large source: a progress line on stderr every 25 pages, stdout unchanged", async () => {
    const large = await source({ sizes: { contacts: 2600, leads: 20 } });
    const outcome = await preflight([large.baseUrl, "--rate", "1000"], { SOURCE_TOKEN: PREFLIGHT_TOKEN });
    expect(outcome.code).toBe(0);
    expect(outcome.stderr).toBe("  ... /contacts: page 25\n");
    expect(outcome.stdout).toMatch(/^CONFORMS: 0 error\(s\), 0 warning\(s\), \d+ rules checked$/m);
  });

  test("exit 2: a token the source refuses says to pass the right one", async () => {
    const outcome = await preflight([conforming.baseUrl, "--token", `${PREFLIGHT_TOKEN}x`]);
    expect(outcome.code).toBe(2);
    expect(outcome.stderr).toMatch(/^crm-preflight: the source answered 401 to the token given: pass the token it accepts with --token or SOURCE_TOKEN\n$/);
    expect(outcome.stderr).not.toContain(`${PREFLIGHT_TOKEN}`);
  });

  test.each([
    [[], /pass exactly one base URL/],
    [["http://127.0.0.1:9"], /no token: set SOURCE_TOKEN \(keeps it out of shell history\) or pass --token/],
    [["http://127.0.0.1:9", "--token", "tok-0123456789", "--rate", "0"], /--rate needs a whole number from 1/],
    [["http://127.0.0.1:9", "--token", "tok-0123456789", "--max-pages", "5001"], /--max-pages needs a whole number from 1 to 5000/],
    [["http://127.0.0.1:9", "--token", "tok-0123456789", "--format", "xml"], /--format must be one of text, json, junit/],
    [["http://127.0.0.1:9", "--token", "tok-0123456789", "--colour"], /unknown option --colour/],
    [["ftp://example.com", "--token", "tok-0123456789"], /must start with http:\/\/ or https:\/\//],
    [["not a url", "--token", "tok-0123456789"], /is not a URL: pass the root of the source API/],
  ])("exit 2 for bad arguments %j: one line saying what to do", async (args, message) => {
    const outcome = await preflight(args as string[]);
    expect(outcome.code).toBe(2);
    expect(outcome.stdout).toBe("");
    expect(outcome.stderr).toMatch(message);
    expect(outcome.stderr.trimEnd().split("\n")).toHaveLength(1);
  });
});
