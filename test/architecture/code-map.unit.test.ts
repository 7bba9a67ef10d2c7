import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, posix, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "../..");
const MAP = "docs/code-map.md";
const map = readFileSync(join(root, MAP), "utf8");

/** Top-level folders that are not the project's own: tools' output and installed packages (all in .gitignore). */
const NOT_SOURCE = new Set(["node_modules", "cdk.out", "coverage"]);

function topLevelFolders(): string[] {
  return readdirSync(root, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && !entry.name.startsWith(".") && !NOT_SOURCE.has(entry.name))
    .map((entry) => `${entry.name}/`);
}

function foldersUnder(folder: string): string[] {
  return readdirSync(join(root, folder), { recursive: true, encoding: "utf8" })
    .filter((path) => statSync(join(root, folder, path)).isDirectory())
    .map((path) => `${folder}/${path.split("\\").join("/")}/`);
}

const codeSpans = (text: string): string[] => [...text.matchAll(/`([^`\n]+)`/g)].map((m) => m[1]!);
const asFolder = (path: string): string => (path.endsWith("/") ? path : `${path}/`);

/** Every folder the map names: a code span that is a path from the root and ends with `/` or is a folder. */
function mappedFolders(): Set<string> {
  const isFolder = (span: string) => span.endsWith("/") || (existsSync(join(root, span)) && statSync(join(root, span)).isDirectory());
  return new Set(codeSpans(map).filter((span) => /^[\w-]+(\/[\w.-]+)*\/?$/.test(span) && isFolder(span)).map(asFolder));
}

/**
 * Every path the map names, to check that it exists: code spans that are paths from the project's root
 * (`lambdas/domain/sync/`, `statemachine/sync.asl.json`), and, in a table row about one folder, the bare file
 * names its other cells give (`rate-limited-source-client.ts` in the `lambdas/domain/sync/` row).
 */
function mappedPaths(): string[] {
  const tops = topLevelFolders().map((folder) => folder.slice(0, -1));
  const paths = codeSpans(map).filter((span) => tops.some((top) => span === top || span.startsWith(`${top}/`)) && /^[\w./-]+$/.test(span));
  for (const row of map.split("\n").filter((line) => line.startsWith("| `"))) {
    const [first, ...rest] = row.split("|").slice(1, -1);
    const folder = codeSpans(first ?? "")[0];
    if (folder === undefined || !folder.endsWith("/")) continue;
    for (const span of codeSpans(rest.join("|"))) {
      if (/^[\w.-]+\.(ts|json|md)$/.test(span)) paths.push(posix.join(folder, span));
    }
  }
  return paths;
}

describe("the folder map (docs/code-map.md)", () => {
  it("every top-level folder appears in the map", () => {
    const mapped = mappedFolders();
    expect(topLevelFolders().filter((folder) => !mapped.has(folder))).toEqual([]);
  });

  it("every folder under lambdas/ appears in the map", () => {
    const mapped = mappedFolders();
    const folders = ["lambdas/", ...foldersUnder("lambdas")];
    expect(folders.length).toBeGreaterThan(10);
    expect(folders.filter((folder) => !mapped.has(folder))).toEqual([]);
  });

  it("every path the map names exists", () => {
    const paths = mappedPaths();
    expect(paths.length).toBeGreaterThan(30);
    expect(paths.filter((path) => !existsSync(join(root, path)))).toEqual([]);
  });

  it("there is one folder map: the README has no folder table of its own and links to the map", () => {
    const readme = readFileSync(join(root, "README.md"), "utf8");
    expect(readme.split("\n").filter((line) => /^\|\s*folder\s*\|/i.test(line))).toEqual([]);
    expect(readme).toContain("](docs/code-map.md");
  });
});
