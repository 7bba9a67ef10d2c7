import { resolve } from "node:path";
import { build } from "esbuild";

/** One import: `from` (a file of the repo) imports `to` (a repo file, or a package name when external). */
export interface ImportEdge {
  readonly from: string;
  readonly to: string;
}

/** The name esbuild gives the one entry that imports every file asked about. */
const ENTRY = "<stdin>";

/**
 * Every import reached from `entryPoints`, directly or through other modules:
 * esbuild bundles them (writing nothing) and its metafile names each edge.
 * Packages are not followed, so they appear as edges to their names. One entry
 * imports them all: a bundle per entry point cost seconds for the test files.
 */
export async function importGraph(entryPoints: readonly string[]): Promise<ImportEdge[]> {
  const result = await build({
    stdin: { contents: entryPoints.map((file) => `import ${JSON.stringify(resolve(file))};`).join("\n"), resolveDir: process.cwd(), sourcefile: ENTRY },
    bundle: true,
    write: false,
    metafile: true,
    platform: "node",
    format: "esm",
    outdir: "/tmp/import-graph",
    packages: "external",
    logLevel: "silent",
  });
  return Object.entries(result.metafile.inputs)
    .filter(([from]) => from !== ENTRY)
    .flatMap(([from, input]) => input.imports.map((i) => ({ from, to: i.path })));
}
