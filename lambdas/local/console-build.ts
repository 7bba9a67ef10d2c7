import { createHash } from "node:crypto";
import { readdir, readFile, writeFile } from "node:fs/promises";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** The console's source folder (Vite root); its build goes to `<dir>/dist`. */
export const CONSOLE_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "../../console");
/** Written into the build: the hash of the sources it was built from. */
export const SOURCE_HASH_FILE = ".source-hash";

const SKIPPED = new Set(["dist", "node_modules"]);

/**
 * One hash over every source file's path and bytes (not mtimes, which a
 * checkout or a copy rewrites): the build is stale exactly when it differs.
 */
export async function consoleSourceHash(consoleDir: string = CONSOLE_DIR): Promise<string> {
  const hash = createHash("sha256");
  const walk = async (dir: string): Promise<void> => {
    const entries = (await readdir(dir, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name));
    for (const entry of entries) {
      if (SKIPPED.has(entry.name)) continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) await walk(path);
      else if (entry.isFile()) hash.update(relative(consoleDir, path)).update("\0").update(await readFile(path)).update("\0");
    }
  };
  await walk(consoleDir);
  return hash.digest("hex");
}

/** Why the build must be redone, or null when it matches the sources. */
export async function consoleBuildStaleness(consoleDir: string = CONSOLE_DIR): Promise<"missing" | "stale" | null> {
  let built: string;
  try {
    built = (await readFile(join(consoleDir, "dist", SOURCE_HASH_FILE), "utf8")).trim();
    await readFile(join(consoleDir, "dist", "index.html"));
  } catch {
    return "missing";
  }
  return built === (await consoleSourceHash(consoleDir)) ? null : "stale";
}

/** `vite build` of the console, then the source hash beside it. */
export async function buildConsole(consoleDir: string = CONSOLE_DIR): Promise<void> {
  const hash = await consoleSourceHash(consoleDir);
  const { build } = await import("vite");
  await build({ configFile: join(consoleDir, "vite.config.ts"), root: consoleDir, logLevel: "warn" });
  await writeFile(join(consoleDir, "dist", SOURCE_HASH_FILE), `${hash}\n`);
}

/** `npm start`: builds the console when its build is missing or older than its sources; says so in one line. */
export async function ensureConsoleBuilt(
  consoleDir: string = CONSOLE_DIR,
  say: (line: string) => void = () => undefined,
): Promise<"built" | "fresh"> {
  const staleness = await consoleBuildStaleness(consoleDir);
  if (staleness === null) return "fresh";
  say(`console build ${staleness}: building it (npm run build)…`);
  await buildConsole(consoleDir);
  return "built";
}
