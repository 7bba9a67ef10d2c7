import { existsSync, readFileSync } from "node:fs";
import { dirname, join, normalize } from "node:path";
import ts from "typescript";
import { sourceFiles } from "./source-files";

/** One import as written: `from` (a repo file) names `to`, a repo file for a relative specifier, else the package's name. */
export interface ModuleImport {
  readonly from: string;
  readonly to: string;
  /** A package (`valibot`, `node:fs`, `@aws-sdk/client-dynamodb`), not a file of the repo. */
  readonly external: boolean;
}

/** The repo file a relative specifier names, as TypeScript's bundler resolution finds it (extensionless, `.js` for `.ts`, a folder's index). */
function resolveRelative(from: string, specifier: string): string {
  const base = normalize(join(dirname(from), specifier));
  const candidates = [base, `${base}.ts`, `${base}.tsx`, base.replace(/\.js$/, ".ts"), join(base, "index.ts")];
  return candidates.find((path) => existsSync(path) && path.endsWith(".ts")) ?? base;
}

/** A package's name from a specifier: `@scope/name/sub` is `@scope/name`, `name/sub` is `name`. */
const packageName = (specifier: string): string =>
  specifier.startsWith("@") ? specifier.split("/").slice(0, 2).join("/") : specifier.split("/")[0]!;

/**
 * Every import, export-from and dynamic import of the files under `folder`, type-only ones included (an
 * `import type` of a higher layer is still a dependency on it), read by TypeScript's own pre-processor.
 */
export function moduleImports(folder: string): ModuleImport[] {
  return sourceFiles(folder).flatMap((from) =>
    ts.preProcessFile(readFileSync(from, "utf8"), true, true).importedFiles.map(({ fileName }) =>
      fileName.startsWith(".")
        ? { from, to: resolveRelative(from, fileName), external: false }
        : { from, to: fileName.startsWith("node:") ? fileName : packageName(fileName), external: true },
    ),
  );
}
