import { expect, test } from "vitest";
import { importGraph } from "../support/import-graph";
import { sourceFiles } from "../support/source-files";

/** The local runtime: what only `npm start` runs. The stack (lib/) deploys the same code to AWS without it. */
const LOCAL_RUNTIME = "lambdas/runtimes/local/";

test("lib/ must not import the local runtime (nothing under lambdas/runtimes/local/, directly or through another module)", async () => {
  const entryPoints = sourceFiles("lib");
  const offenders = (await importGraph(entryPoints)).filter(({ to }) => to.startsWith(LOCAL_RUNTIME)).map(({ from, to }) => `${from} -> ${to}`);
  expect(entryPoints.length).toBeGreaterThan(5);
  expect(offenders).toEqual([]);
});
