import { readFileSync } from "node:fs";
import { join, sep } from "node:path";
import { expect, test } from "vitest";
import { sourceFiles } from "../support/source-files";

const RUN_ITEM = join("lambdas", "adapters", "dynamodb", "runs", "run-item") + sep;

/**
 * What only the run item's folder may name: its attributes and the lock's sort
 * key (everyone else asks it for keys, conditions and updates), and a key or
 * an update of the lock or the summary built by hand.
 */
const LAYOUT = /\bRUN_ATTR\b|\bLOCK_SORT_KEY\b|\bfunction\s+(?:lockKey|runKey)\b|\bconst\s+lockKey\b/g;

test("a run's state has one home: only lambdas/adapters/dynamodb/runs/run-item/ names the run item's attributes and builds its keys and updates", () => {
  const files = ["lambdas", "lib", "bin"].flatMap((folder) => sourceFiles(folder));
  expect(files.filter((path) => path.startsWith(RUN_ITEM)).length).toBeGreaterThan(1);
  const offenders = files
    .filter((path) => !path.startsWith(RUN_ITEM))
    .flatMap((path) => [...readFileSync(path, "utf8").matchAll(LAYOUT)].map((m) => `${m[0]} in ${path}`));
  expect(offenders).toEqual([]);
});
