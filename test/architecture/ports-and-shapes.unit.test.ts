import { existsSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { expect, test } from "vitest";
import { sourceFiles } from "../support/source-files";

const PORTS = join("lambdas", "domain", "core", "ports");
const kebab = (name: string): string => name.replace(/([a-z0-9])([A-Z])/g, "$1-$2").toLowerCase();
const code = (path: string): string => readFileSync(path, "utf8").replace(/\/\*[\s\S]*?\*\//g, "").replace(/\/\/.*$/gm, "");

test("each port has its own file in lambdas/domain/core/ports/, named for the one port it holds", () => {
  const files = sourceFiles(PORTS);
  // The ten ports the domain talks through, at least: the scan must see them.
  expect(files.length).toBeGreaterThanOrEqual(10);
  const misnamed = files.filter((path) => {
    const interfaces = [...code(path).matchAll(/\bexport\s+interface\s+(\w+)/g)].map((m) => m[1]!);
    return !interfaces.some((name) => `${kebab(name)}.ts` === basename(path));
  });
  expect(misnamed).toEqual([]);
});

test("no grab-bag of ports: no lambdas/domain/core/ports.ts, no barrel in ports/, nothing imports the folder", () => {
  expect(existsSync(join("lambdas", "core", "ports.ts"))).toBe(false);
  expect(existsSync(join(PORTS, "index.ts"))).toBe(false);
  const importers = ["lambdas", "lib", "bin", "test"]
    .flatMap((folder) => sourceFiles(folder))
    .filter((path) => /from\s+"[^"]*\/ports"/.test(code(path)));
  expect(importers).toEqual([]);
});

/** A field declared with a type or a schema (`name: string`, `name: v.…`, `name: nonEmpty`), not a value being built. */
const declared = (field: string): RegExp => new RegExp(`\\b${field}\\??\\s*:\\s*(?:v\\.|nonEmpty\\b|string\\b)`, "g");

test("the run reference {business_account_id, connection_id, run_id} is declared once, in lambdas/domain/core/run-reference.ts", () => {
  const declarations = ["lambdas", "bin"]
    .flatMap((folder) => sourceFiles(folder))
    .flatMap((path) => {
      const text = code(path);
      // A shape that declares all three within a few lines: one more copy of the reference.
      return [...text.matchAll(declared("business_account_id"))]
        .filter((m) => {
          const around = text.slice(Math.max(0, m.index - 300), m.index + 300);
          return declared("connection_id").test(around) && declared("run_id").test(around);
        })
        .map((m) => `${path}:${text.slice(0, m.index).split("\n").length}`);
    });
  expect(declarations.map((at) => at.split(":")[0])).toEqual([join("lambdas", "domain", "core", "run-reference.ts")]);
});

test("there is one Clock, lambdas/domain/core/ports/clock.ts: no other clock type, and no `now` function passed in its place", () => {
  const files = ["lambdas", "bin"].flatMap((folder) => sourceFiles(folder)).map((path) => ({ path, text: code(path) }));
  const clockTypes = files.flatMap(({ path, text }) =>
    [...text.matchAll(/\b(?:interface|type|class)\s+(\w*Clock)\b/g)].map((m) => `${path}: ${m[1]}`),
  );
  expect(clockTypes).toEqual([`${join(PORTS, "clock.ts")}: Clock`]);
  // An option or parameter typed as a bare time function is a second clock shape; a class's own derived
  // `private readonly now` (epoch ms read from its Clock) is not.
  const nowFunctions = files.flatMap(({ path, text }) =>
    [...text.matchAll(/(?<!private readonly |#)\bnow\??\s*:\s*\(\)\s*=>\s*(?:number|Date)\b/g)].map(
      (m) => `${path}:${text.slice(0, m.index).split("\n").length}: ${m[0]}`,
    ),
  );
  expect(nowFunctions).toEqual([]);
});
