import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { SyncError, type ErrorClass } from "../../lambdas/domain/core/errors";
import { sourceFiles } from "./source-files";

/**
 * Every concrete SyncError class under lambdas/: the modules that declare a
 * class extending SyncError (or a subclass of it, to any depth) are found in
 * the source, imported, and their exports walked. No hand-kept list to forget one in.
 */
export async function syncErrorClasses(): Promise<ErrorClass[]> {
  const files = sourceFiles("lambdas").map((path) => ({ path, text: readFileSync(path, "utf8") }));
  const subclasses = new Set(["SyncError"]);
  const declaring = new Set<string>();
  for (let grew = true; grew; ) {
    grew = false;
    for (const { path, text } of files) {
      for (const [, name, parent] of text.matchAll(/\bclass\s+(\w+)\s+extends\s+(\w+)/g)) {
        if (!subclasses.has(parent!) || subclasses.has(name!)) continue;
        subclasses.add(name!);
        declaring.add(path);
        grew = true;
      }
    }
  }
  const classes = new Set<ErrorClass>();
  for (const path of declaring) {
    const exports = (await import(resolve(path))) as Record<string, unknown>;
    for (const value of Object.values(exports)) {
      if (typeof value === "function" && value.prototype instanceof SyncError) classes.add(value as ErrorClass);
    }
  }
  return [...classes];
}
