import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { sourceFiles } from "../support/source-files";

/** Every folder of TypeScript the project runs or tests. */
const SOURCE_FOLDERS = ["lambdas", "lib", "bin", "statemachine", "test"];

const files = SOURCE_FOLDERS.flatMap((folder) => sourceFiles(folder)).map((path) => ({ path, text: readFileSync(path, "utf8") }));

/** The project's own typed errors: a class to match with instanceof exists for each. */
const errorClasses = new Set(files.flatMap(({ text }) => [...text.matchAll(/\bclass\s+(\w+(?:Error|Exception))\b/g)].map((m) => m[1]!)));

/** `x.name === "FooError"`, `"FooError" !== x.name`, `case "FooError":`: a match on the name string. */
const NAME_MATCHES = [
  /\.name\s*[!=]==?\s*["'`](\w+)["'`]/g,
  /["'`](\w+)["'`]\s*[!=]==?\s*[\w.?]*\.name\b/g,
  /\bcase\s+["'`](\w+)["'`]\s*:/g,
];

test("typed errors are matched by class, never by their name string", () => {
  const offenders = files.flatMap(({ path, text }) =>
    NAME_MATCHES.flatMap((pattern) => [...text.matchAll(pattern)])
      .filter((match) => errorClasses.has(match[1]!))
      .map((match) => `${path}:${text.slice(0, match.index).split("\n").length}: ${match[0]}`),
  );
  // The scan must see the typed errors it guards, e.g. the sync's and the store's.
  expect(errorClasses).toContain("SourceThrottledError");
  expect(errorClasses).toContain("InvalidCursorError");
  expect(offenders).toEqual([]);
});

test("InvalidCursorError sits with the other typed errors in lambdas/domain/core/errors.ts", () => {
  const homes = files.filter(({ text }) => /\bclass\s+InvalidCursorError\b/.test(text)).map(({ path }) => path);
  expect(homes).toEqual([join("lambdas", "domain", "core", "errors.ts")]);
});
