import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { sourceFiles } from "../support/source-files";

test("the DynamoDB key limits are defined once, in lambdas/adapters/dynamodb/table/key-limits.ts", () => {
  const definitions = ["lambdas", "lib", "bin"]
    .flatMap((folder) => sourceFiles(folder))
    .flatMap((path) =>
      [...readFileSync(path, "utf8").matchAll(/\b(?:const|let|var)\s+((?:SORT|PARTITION)_KEY_MAX_BYTES)\s*=/g)].map((m) => `${m[1]} in ${path}`),
    );
  expect(definitions.sort()).toEqual([
    `PARTITION_KEY_MAX_BYTES in ${join("lambdas", "adapters", "dynamodb", "table", "key-limits.ts")}`,
    `SORT_KEY_MAX_BYTES in ${join("lambdas", "adapters", "dynamodb", "table", "key-limits.ts")}`,
  ]);
});
