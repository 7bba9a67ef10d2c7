import { expect, test } from "vitest";
import { importGraph } from "../support/import-graph";
import { sourceFiles } from "../support/source-files";

/** The domain: it talks to the world through ports only, so it runs the same in Lambda, locally and in tests. */
const DOMAIN_FOLDERS = ["lambdas/domain"];

/** Packages only the AWS adapters (lambdas/adapters/) may import. */
const AWS_ONLY_PACKAGES = ["@aws-sdk/", "@aws-lambda-powertools/"];

test("domain code imports no AWS SDK and no Powertools (metrics and logs go through ports), directly or through another module", async () => {
  const entryPoints = DOMAIN_FOLDERS.flatMap((folder) => sourceFiles(folder));
  const offenders = (await importGraph(entryPoints))
    .filter(({ to }) => AWS_ONLY_PACKAGES.some((prefix) => to.startsWith(prefix)))
    .map(({ from, to }) => `${from} -> ${to}`);
  expect(entryPoints.length).toBeGreaterThan(30);
  expect(offenders).toEqual([]);
});
