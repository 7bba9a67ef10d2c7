import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, test } from "vitest";
import { ESM_REQUIRE_BANNER } from "../../lib/service-function";
import { functionId, serviceFunctions, synthesize, TEST_CONTEXT } from "./stack-fixture";

/**
 * The one test that bundles for real, as `cdk synth` does: the locally
 * installed esbuild (no Docker), ESM with the createRequire banner. Each
 * bundle is then loaded by plain Node, as the Lambda runtime loads it.
 */
const outdir = mkdtempSync(join(tmpdir(), "crm-cdk-bundling-"));

/**
 * The size check that stands in for esbuild's summary, which synth no longer prints (lib/service-function.ts): the
 * bundles were 1.1 to 1.4 MB, of which undici is about 525 kB in each and the AWS SDK, bundled on purpose, most of
 * the rest. A dependency that doubled a bundle would fail here.
 */
const BUNDLE_SIZE_BUDGET_BYTES = 1.5 * 1024 * 1024;
afterAll(() => rmSync(outdir, { recursive: true, force: true }));

describe("CDK stack: Lambda bundles", () => {
  test("every function's code is an ESM bundle built by local esbuild, within the size budget (BUNDLE_SIZE_BUDGET_BYTES), and it loads in Node with its handler exported", () => {
    const { app, stack } = synthesize(TEST_CONTEXT, { bundle: true, outdir });
    const assembly = app.synth();
    const template = assembly.getStackByName(stack.stackName).template as { Resources: Record<string, { Properties: { Code: { S3Key: string } } }> };
    const functions = serviceFunctions(stack);
    const assets = new Set<string>();
    for (const [name, fn] of Object.entries(functions)) {
      // The code's S3 key is `<asset hash>.zip`; the staged bundle is in asset.<asset hash>/ of the assembly.
      const key = template.Resources[functionId(fn)]!.Properties.Code.S3Key;
      expect(key, name).toMatch(/^[0-9a-f]{64}\.zip$/);
      const dir = join(outdir, `asset.${key.replace(/\.zip$/, "")}`);
      const bundle = join(dir, "index.mjs");
      expect(existsSync(bundle), `${name}: ${bundle}`).toBe(true);
      expect(existsSync(`${bundle}.map`), `${name}: source map`).toBe(true);
      expect(readFileSync(bundle, "utf8").startsWith(ESM_REQUIRE_BANNER), `${name}: createRequire banner`).toBe(true);
      expect(statSync(bundle).size, `${name}: bundle size`).toBeLessThanOrEqual(BUNDLE_SIZE_BUDGET_BYTES);
      assets.add(bundle);
    }
    // The two API functions share one entry point, hence one bundle.
    expect(assets.size).toBeGreaterThanOrEqual(7);

    const env = {
      PATH: process.env.PATH,
      TABLE_NAME: "records",
      KMS_KEY_ID: "arn:aws:kms:us-east-1:111122223333:key/00000000-0000-0000-0000-000000000000",
      STATE_MACHINE_ARN: "arn:aws:states:us-east-1:111122223333:stateMachine:CrmIntegration-Sync",
      PREFLIGHT_FUNCTION_NAME: "arn:aws:lambda:us-east-1:111122223333:function:CrmIntegration-PreflightWorker:live",
      AWS_REGION: "us-east-1",
      NODE_NO_WARNINGS: "1",
    };
    // One plain Node process loads every bundle in turn (a process start each cost more than the loads): each is its
    // own module graph, as in its own Lambda, and the line per bundle says whether its handler is a function.
    const urls = [...assets].map((bundle) => pathToFileURL(bundle).href);
    const script = `for (const url of ${JSON.stringify(urls)}) { const m = await import(url); process.stdout.write(url + " " + typeof m.handler + "\\n"); }`;
    const out = execFileSync(process.execPath, ["--input-type=module", "--enable-source-maps", "-e", script], { env, encoding: "utf8", timeout: 60_000 });
    expect(out.trim().split("\n")).toEqual(urls.map((url) => `${url} function`));
  }, 120_000);
});
