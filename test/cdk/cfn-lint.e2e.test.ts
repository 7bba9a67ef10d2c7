import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, test } from "vitest";
import { synthesize } from "./stack-fixture";

/**
 * AWS's CloudFormation linter (cfn-lint, Python) on the synthesized template: resource properties against each
 * resource's schema, ARNs and names, IAM policy shapes, dependencies. Part of the machines' image and CI's; on a laptop
 * without it the test says so and is skipped, under CI=true it is required. Rules ignored: .cfnlintrc.yaml, each with
 * its reason. One synth, one cfn-lint run.
 */
const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url));
const CONFIG = join(REPO_ROOT, ".cfnlintrc.yaml");
const installed = spawnSync("cfn-lint", ["--version"], { encoding: "utf8" }).status === 0;
const required = process.env["CI"] === "true";
if (!installed) {
  console.warn(
    required
      ? "cfn-lint is not on the PATH, and CI=true requires it: install it (pip install cfn-lint)."
      : "cfn-lint is not on the PATH: the template's lint (test/cdk/cfn-lint.e2e.test.ts) is skipped. Install it with pip install cfn-lint.",
  );
}

interface Finding {
  readonly Rule: { readonly Id: string };
  readonly Level: string;
  readonly Message: string;
  readonly Location?: { readonly Path?: readonly unknown[] };
}

const dir = mkdtempSync(join(tmpdir(), "crm-cfn-lint-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("cfn-lint (AWS's CloudFormation linter) on the synthesized template", () => {
  test("cfn-lint is installed wherever CI runs", () => {
    expect(installed || !required, "cfn-lint is required under CI=true").toBe(true);
  });

  test.skipIf(!installed)("the template has 0 errors and 0 warnings (those ignored in .cfnlintrc.yaml say why)", () => {
    const file = join(dir, "CrmIntegration.template.json");
    writeFileSync(file, JSON.stringify(synthesize().template.toJSON(), null, 1));
    const run = spawnSync("cfn-lint", ["--config-file", CONFIG, "--format", "json", "--", file], { encoding: "utf8", cwd: REPO_ROOT });
    // Exit codes: 0 clean, else a bit mask of error (2), warning (4), informational (8); 1 is cfn-lint failing itself.
    expect(run.status, run.stderr).not.toBe(1);
    const findings = JSON.parse(run.stdout || "[]") as Finding[];
    const blocking = findings
      .filter((finding) => finding.Level === "Error" || finding.Level === "Warning")
      .map((finding) => `${finding.Level} ${finding.Rule.Id} at ${(finding.Location?.Path ?? []).join("/")}: ${finding.Message}`);
    expect(blocking).toEqual([]);
  }, 180_000);
});
