import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { sourceFiles } from "../support/source-files";

const FACTORY = join("lambdas", "adapters", "dynamodb", "dynamodb-adapters.ts");

test("the DynamoDB adapters are built in one place: both composition roots and the bench take them from lambdas/adapters/dynamodb/dynamodb-adapters.ts", () => {
  const builders = ["lambdas", "lib", "bin"]
    .flatMap((folder) => sourceFiles(folder))
    .filter((path) => path !== FACTORY)
    .flatMap((path) => [...readFileSync(path, "utf8").matchAll(/\bnew\s+(DynamoDb\w+)\s*\(/g)].map((m) => `${m[1]} in ${path}`));
  expect(builders).toEqual([]);
});
