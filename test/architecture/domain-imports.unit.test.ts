import { expect, test } from "vitest";
import { importGraph } from "../support/import-graph";
import { sourceFiles } from "../support/source-files";

/** The domain is a path, not a list: everything under lambdas/domain/ talks to the world through ports only, so it runs the same in Lambda, locally and in tests. */
const DOMAIN = "lambdas/domain";

/** Packages only the AWS adapters (lambdas/adapters/) may import. */
const AWS_ONLY_PACKAGES = ["@aws-sdk/", "@aws-lambda-powertools/"];

test("domain code (lambdas/domain/) imports no AWS SDK and no Powertools (metrics and logs go through ports), directly or through another module", async () => {
  const entryPoints = sourceFiles(DOMAIN);
  const offenders = (await importGraph(entryPoints))
    .filter(({ to }) => AWS_ONLY_PACKAGES.some((prefix) => to.startsWith(prefix)))
    .map(({ from, to }) => `${from} -> ${to}`);
  expect(entryPoints.length).toBeGreaterThan(100);
  expect(offenders).toEqual([]);
});
