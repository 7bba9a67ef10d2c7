import { expect, test } from "vitest";
import mainConfig from "../../vitest.config";
import unitConfig, { UNIT_TEST_SUFFIX } from "../../vitest.unit.config";
import { importGraph } from "../support/import-graph";
import { sourceFiles } from "../support/source-files";

/** What starts or reaches DynamoDB Local (Java): a unit-tier test must reach none of it. */
const NEEDS_JAVA = ["test/support/dynamodb.ts", "test/support/dynamodb-local.global-setup.ts", "lambdas/runtimes/local/dynamodb-local.ts"];

const unitTests = sourceFiles("test", UNIT_TEST_SUFFIX);

type TestConfig = { test?: { include?: string[]; globalSetup?: unknown; setupFiles?: unknown } };

test("the unit tier is chosen by file name: it runs every *.unit.test.ts and nothing else, and npm test runs them too", () => {
  expect((unitConfig as TestConfig).test?.include).toEqual([`test/**/*${UNIT_TEST_SUFFIX}`]);
  expect((mainConfig as TestConfig).test?.include).toEqual(["test/**/*.test.ts"]);
});

test("the unit tier needs no Java: no DynamoDB Local set-up, and no unit test imports DynamoDB Local, directly or through another module", async () => {
  const config = unitConfig as TestConfig;
  expect(config.test?.globalSetup).toBeUndefined();
  expect(config.test?.setupFiles).toBeUndefined();

  const offenders = (await importGraph(unitTests)).filter(({ to }) => NEEDS_JAVA.includes(to)).map(({ from, to }) => `${from} -> ${to}`);
  expect(unitTests.length).toBeGreaterThan(20);
  expect(offenders).toEqual([]);
});
