import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { sourceFiles } from "../support/source-files";

const QUERY_ALL = join("lambdas", "adapters", "dynamodb", "table", "query-all.ts");

test("a Query's pages are followed in one place: only lambdas/adapters/dynamodb/table/query-all.ts sends an ExclusiveStartKey it read from LastEvaluatedKey", () => {
  // A store may hand LastEvaluatedKey to its caller as a cursor (one page a call); it never loops on it.
  const loops = ["lambdas", "lib", "bin"]
    .flatMap((folder) => sourceFiles(folder))
    .filter((path) => path !== QUERY_ALL)
    .filter((path) => /=\s*out\.LastEvaluatedKey\b/.test(readFileSync(path, "utf8")) || /\bstartKey\b/.test(readFileSync(path, "utf8")));
  expect(loops).toEqual([]);
});
