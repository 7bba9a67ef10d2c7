import { build } from "esbuild";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";

/** The local runtime: what only `npm start` runs. The stack (lib/) deploys the same code to AWS without it. */
const LOCAL_RUNTIME = "lambdas/local/";

test("lib/ must not import the local runtime (nothing under lambdas/local/, directly or through another module)", async () => {
  const entryPoints = readdirSync("lib")
    .filter((name) => name.endsWith(".ts"))
    .map((name) => join("lib", name));
  // esbuild follows every import of every lib file; the metafile lists each module it reached and who imported it.
  const result = await build({
    entryPoints,
    bundle: true,
    write: false,
    metafile: true,
    platform: "node",
    format: "esm",
    outdir: "/tmp/lib-imports",
    packages: "external",
    logLevel: "silent",
  });
  const offenders = Object.entries(result.metafile.inputs).flatMap(([file, input]) =>
    input.imports.filter((i) => i.path.startsWith(LOCAL_RUNTIME)).map((i) => `${file} -> ${i.path}`),
  );
  expect(entryPoints.length).toBeGreaterThan(5);
  expect(offenders).toEqual([]);
});
