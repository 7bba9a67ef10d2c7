import { expect, test } from "vitest";
import { END_TO_END_SUFFIX } from "../../vitest.config";
import { importGraph } from "../support/import-graph";
import { sourceFiles } from "../support/source-files";

/** What starts another process: a child (`npm start`, Java, esbuild, a CLI) or a browser. */
const STARTS_PROCESSES = ["node:child_process", "child_process", "playwright-core"];

/** The test files from which one of `targets` is reachable through the repo's own modules. */
async function filesReaching(tests: readonly string[], targets: readonly string[]): Promise<string[]> {
  const edges = await importGraph(tests);
  const importsOf = new Map<string, string[]>();
  for (const { from, to } of edges) importsOf.set(from, [...(importsOf.get(from) ?? []), to]);
  const reaches = (file: string): boolean => {
    const seen = new Set<string>();
    const stack = [file];
    while (stack.length > 0) {
      const next = stack.pop()!;
      if (targets.includes(next)) return true;
      if (seen.has(next)) continue;
      seen.add(next);
      stack.push(...(importsOf.get(next) ?? []));
    }
    return false;
  };
  return tests.filter(reaches);
}

test("a test file that starts processes or a browser is named *.e2e.test.ts, so that the sequencer starts it first", async () => {
  const tests = sourceFiles("test", ".test.ts");
  const starting = await filesReaching(tests, STARTS_PROCESSES);
  expect(starting.length).toBeGreaterThan(5);
  expect(starting.filter((file) => !file.endsWith(END_TO_END_SUFFIX))).toEqual([]);
});
