import { existsSync } from "node:fs";
import { expect, test } from "vitest";
import unitConfig, { UNIT_FILES, UNIT_FOLDERS } from "../../vitest.unit.config";
import { importGraph } from "../support/import-graph";
import { sourceFiles } from "../support/source-files";

/** What starts or reaches DynamoDB Local (Java): a unit-tier test must reach none of it. */
const NEEDS_JAVA = ["test/support/dynamodb.ts", "test/support/dynamodb-local.global-setup.ts", "lambdas/local/dynamodb-local.ts"];

const unitTests = [...UNIT_FOLDERS.flatMap((folder) => sourceFiles(folder, ".test.ts")), ...UNIT_FILES];

test("the unit tier needs no Java: no DynamoDB Local set-up, and no unit test imports DynamoDB Local, directly or through another module", async () => {
  const config = unitConfig as { test?: { globalSetup?: unknown; setupFiles?: unknown } };
  expect(config.test?.globalSetup).toBeUndefined();
  expect(config.test?.setupFiles).toBeUndefined();
  expect(unitTests.filter((file) => !existsSync(file))).toEqual([]);

  const offenders = (await importGraph(unitTests)).filter(({ to }) => NEEDS_JAVA.includes(to)).map(({ from, to }) => `${from} -> ${to}`);
  expect(unitTests.length).toBeGreaterThan(20);
  expect(offenders).toEqual([]);
});
