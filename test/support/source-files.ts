import { readdirSync } from "node:fs";
import { join } from "node:path";

/** Every file under `folder` (recursively) whose name ends with `suffix`: what the architecture tests scan. */
export function sourceFiles(folder: string, suffix = ".ts"): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sourceFiles(join(folder, entry.name), suffix) : entry.name.endsWith(suffix) ? [join(folder, entry.name)] : [],
  );
}
