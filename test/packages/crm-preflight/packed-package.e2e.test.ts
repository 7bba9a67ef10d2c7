import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import * as v from "valibot";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startReferenceSource, type ReferenceSource } from "../../../bin/reference-source/start-reference-source";
import { ReportSchema } from "../../../lambdas/domain/preflight/report";
import { KIT_RULES } from "../../../lambdas/domain/source-contract/rules/catalog";
import { slugOf } from "../../../packages/crm-preflight/scripts/contract-pages";
import { startSourceServer } from "../../support/source-server";
import { runCommand, type CommandOutcome } from "../../support/run-command";

/**
 * The package as a customer's developer gets it: `npm pack` once for the file, the tarball installed
 * offline into an empty folder outside the repository, then `npx crm-preflight` there against the
 * reference source on loopback, correct and broken. Nothing of the repository is on the way: the
 * installed folder holds the package alone.
 */

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const PACKAGE = join(ROOT, "packages/crm-preflight");
const TOKEN = "customer-ci-token-7f3a";
/** The reference source, small: a second page of /leads for its broken record, a page or two elsewhere. */
const SIZES = { pipelines: 3, users: 12, contacts: 120, leads: 150, tasks: 40, calls: 40, events: 60 };
const NOW = new Date("2026-03-01T12:00:00Z");


/** A customer's shell: none of the npm_* variables of the npm that may be running these tests. */
function customerEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.toLowerCase().startsWith("npm_")));
  return { ...env, ...extra };
}

function run(command: string, args: readonly string[], cwd: string, env: NodeJS.ProcessEnv = customerEnv()): Promise<CommandOutcome> {
  return runCommand(command, args, { cwd, env });
}

interface PackedFile {
  readonly path: string;
}

let scratch: string;
let customer: string;
let packedFiles: string[];
let correct: ReferenceSource;
let broken: ReferenceSource;

/** `npx crm-preflight`, as the customer types it. */
const preflight = (args: readonly string[]) => run("npx", ["--no-install", "crm-preflight", ...args], customer, customerEnv({ SOURCE_TOKEN: TOKEN }));
/** The bin npx finds, run directly: npx's own start-up (about 2 s here) once per run is time, not coverage. */
const installedBin = (args: readonly string[]) => run(join(customer, "node_modules/.bin/crm-preflight"), args, customer, customerEnv({ SOURCE_TOKEN: TOKEN }));
const installed = (path: string) => readFile(join(customer, "node_modules/crm-preflight", path), "utf8");

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), "crm-preflight-package-"));
  const pack = await run("npm", ["pack", "--json", "--pack-destination", scratch], PACKAGE);
  expect(pack.code, pack.stderr).toBe(0);
  const [packed] = JSON.parse(pack.stdout) as [{ filename: string; files: PackedFile[] }];
  packedFiles = packed.files.map((file) => file.path).sort();

  customer = join(scratch, "customer");
  await mkdir(customer);
  await writeFile(join(customer, "package.json"), `${JSON.stringify({ name: "customer-ci", private: true })}\n`);
  const install = await run("npm", ["install", "--offline", "--no-audit", "--no-fund", join(scratch, packed.filename)], customer);
  expect(install.code, install.stderr).toBe(0);

  correct = await startReferenceSource({ token: TOKEN, sizes: SIZES, now: NOW });
  broken = await startReferenceSource({ token: TOKEN, sizes: SIZES, now: NOW, faults: { badRecord: true } });
}, 120_000);

afterAll(async () => {
  await correct?.close();
  await broken?.close();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

describe("crm-preflight, packed and installed outside the repository", () => {
  test("the tarball holds the bundle, the contract pages, the OpenAPI document, the README and package.json: no test, no source, no secret", async () => {
    expect(packedFiles).toEqual([
      "README.md",
      "dist/THIRD-PARTY-LICENSES.md",
      "dist/crm-preflight.mjs",
      "dist/docs/contract.md",
      "dist/docs/rules.md",
      "dist/source-api.openapi.json",
      "package.json",
    ]);
    const manifest = JSON.parse(await installed("package.json")) as Record<string, unknown>;
    expect(manifest).toMatchObject({ name: "crm-preflight", license: "UNLICENSED", engines: { node: ">=20" }, bin: { "crm-preflight": "dist/crm-preflight.mjs" }, files: ["dist"] });
    expect(manifest["dependencies"]).toBeUndefined();
    const bundle = await installed("dist/crm-preflight.mjs");
    for (const secret of ["reference-token", TOKEN, "BEGIN PRIVATE KEY", "aws_secret_access_key"]) expect(bundle).not.toContain(secret);
  });

  test("the bundle holds the CLI, the kit's pure domain and valibot: nothing of the service's runtime (AWS SDK, DynamoDB, CDK, adapters)", async () => {
    // esbuild marks each module it bundles with a `// path` line, from the repository's root.
    const modules = [...(await installed("dist/crm-preflight.mjs")).matchAll(/^\/\/ (\S+\.(?:ts|mjs|js))$/gm)].map((m) => m[1]!);
    expect(modules.length).toBeGreaterThan(50);
    const kit = /^(bin\/preflight\.ts|bin\/preflight\/|lambdas\/domain\/(preflight|source-contract|core|records)\/|node_modules\/valibot\/)/;
    expect(modules.filter((module) => !kit.test(module))).toEqual([]);
    expect(modules).toContain("lambdas/domain/source-contract/rules/catalog.ts");
  });

  test("installs offline in an empty folder outside the repository, with no dependency: the package alone in node_modules", async () => {
    expect(relative(ROOT, customer).startsWith("..")).toBe(true);
    const modules = (await readdir(join(customer, "node_modules"))).filter((name) => !name.startsWith("."));
    expect(modules).toEqual(["crm-preflight"]);
  });

  test("the reference source conforms: exit 0, every rule of the kit checked, nothing on stderr, the token never printed", async () => {
    const outcome = await preflight([correct.url, "--rate", "1000", "--format", "json"]);
    expect(outcome.code, outcome.stderr).toBe(0);
    const report = v.parse(ReportSchema, JSON.parse(outcome.stdout));
    expect(report).toMatchObject({ base_url: correct.url, conforms: true, findings: [] });
    expect([...report.checked].sort()).toEqual(KIT_RULES.map((r) => r.id).sort());
    expect(outcome.stderr).toBe("");
    expect(outcome.stdout).not.toContain(TOKEN);
  });

  test("a broken source (a lead whose price is not a number): exit 1, lead.price-numeric named in text and as a failed JUnit testcase", async () => {
    const text = await preflight([broken.url, "--rate", "1000"]);
    expect(text.code, text.stderr).toBe(1);
    expect(text.stdout).toMatch(/^ {2}ERROR {3}lead\.price-numeric: /m);
    expect(text.stdout.trimEnd().split("\n").at(-1)).toMatch(/^DOES NOT CONFORM: 1 error\(s\), 0 warning\(s\), \d+ rules checked$/);

    const junit = await installedBin([broken.url, "--rate", "1000", "--format", "junit"]);
    expect(junit.code).toBe(1);
    expect(junit.stdout).toMatch(/<testcase classname="preflight\.leads" name="lead\.price-numeric">\s*<failure /);
    expect(`${text.stdout}${text.stderr}${junit.stdout}${junit.stderr}`).not.toContain(TOKEN);
  });

  test("a source that cannot be reached: exit 2 and one line on stderr saying what to do", async () => {
    const closed = await startSourceServer(() => ({ json: {} }));
    await closed.close();
    const outcome = await installedBin([closed.baseUrl]);
    expect(outcome.code).toBe(2);
    expect(outcome.stdout).toBe("");
    expect(outcome.stderr).toMatch(/^crm-preflight: connection refused by http:\/\/127\.0\.0\.1:\d+: start the source or fix the base URL\n$/);
  });

  test("every rule id and spec section a finding can cite is a heading of a page inside the package, and every link there resolves", async () => {
    const pages = { "rules.md": await installed("dist/docs/rules.md"), "contract.md": await installed("dist/docs/contract.md") };
    const headings = (page: string) => new Set([...page.matchAll(/^#{1,6} (.+)$/gm)].map((m) => slugOf(m[1]!)));
    for (const rule of KIT_RULES) {
      expect(pages["rules.md"], rule.id).toContain(`\n## \`${rule.id}\`\n`);
      expect(pages["contract.md"], rule.spec).toContain(`\n### ${rule.spec}\n`);
    }
    for (const [name, page] of Object.entries(pages)) {
      for (const [, file, anchor] of page.matchAll(/\]\(([\w.-]+\.md)#([^)]+)\)/g)) {
        expect(Object.keys(pages), `${name}: ${file}`).toContain(file);
        expect(headings(pages[file as keyof typeof pages]).has(anchor!), `${name}: ${file}#${anchor}`).toBe(true);
      }
    }
    const openapi = JSON.parse(await installed("dist/source-api.openapi.json")) as { openapi: string; paths: Record<string, unknown> };
    expect(openapi.openapi).toMatch(/^3\.1\./);
    expect(Object.keys(openapi.paths).sort()).toEqual(["/calls", "/contacts", "/events", "/leads", "/pipelines", "/tasks", "/users"]);
  });
});
