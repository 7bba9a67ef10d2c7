import { build } from "esbuild";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";

/** The domain: it talks to the world through ports only, so it runs the same in Lambda, locally and in tests. */
const DOMAIN_FOLDERS = ["lambdas/core", "lambdas/records", "lambdas/ingestion", "lambdas/sync", "lambdas/onboarding", "lambdas/preflight", "lambdas/retention"];

/** Packages only the AWS adapters (lambdas/aws) may import. */
const AWS_ONLY_PACKAGES = ["@aws-sdk/", "@aws-lambda-powertools/"];

function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sourceFiles(join(folder, entry.name)) : entry.name.endsWith(".ts") ? [join(folder, entry.name)] : [],
  );
}

test("domain code imports no AWS SDK and no Powertools (metrics and logs go through ports), directly or through another module", async () => {
  const entryPoints = DOMAIN_FOLDERS.flatMap(sourceFiles);
  // esbuild follows every import of every domain file; only packages are left unresolved.
  const result = await build({
    entryPoints,
    bundle: true,
    write: false,
    metafile: true,
    platform: "node",
    format: "esm",
    outdir: "/tmp/domain-imports",
    packages: "external",
    logLevel: "silent",
  });
  const offenders = Object.values(result.metafile.outputs).flatMap((output) =>
    (output.imports ?? []).filter((i) => AWS_ONLY_PACKAGES.some((prefix) => i.path.startsWith(prefix))).map((i) => `${output.entryPoint} -> ${i.path}`),
  );
  expect(entryPoints.length).toBeGreaterThan(30);
  expect(offenders).toEqual([]);
});
