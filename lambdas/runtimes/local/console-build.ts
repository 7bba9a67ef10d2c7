import { createHash, randomBytes } from "node:crypto";
import { readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** The console's source folder (Vite root); its build goes to `<dir>/dist`. */
export const CONSOLE_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "../../../console");
/** Written into the build: the hash of the sources it was built from. */
export const SOURCE_HASH_FILE = ".source-hash";

const SKIPPED = new Set(["dist", "node_modules"]);
/** Builds land in a folder of this prefix first, then replace dist in two renames. */
const BUILDING_PREFIX = ".dist-";

/**
 * One hash over every source file's path and bytes (not mtimes, which a
 * checkout or a copy rewrites): the build is stale exactly when it differs.
 */
export async function consoleSourceHash(consoleDir: string = CONSOLE_DIR): Promise<string> {
  const hash = createHash("sha256");
  const walk = async (dir: string): Promise<void> => {
    const entries = (await readdir(dir, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name));
    for (const entry of entries) {
      if (SKIPPED.has(entry.name) || entry.name.startsWith(BUILDING_PREFIX)) continue;
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

/**
 * `vite build` of the console into a fresh folder, then swapped in for dist:
 * two builds at once (npm start beside a test run) never empty a dist the
 * other is serving from, and a build cut short leaves the old one in place.
 */
export async function buildConsole(consoleDir: string = CONSOLE_DIR): Promise<void> {
  const hash = await consoleSourceHash(consoleDir);
  const suffix = `${process.pid}-${randomBytes(4).toString("hex")}`;
  const building = join(consoleDir, `${BUILDING_PREFIX}${suffix}`);
  const retired = join(consoleDir, `${BUILDING_PREFIX}old-${suffix}`);
  const dist = join(consoleDir, "dist");
  const { build } = await import("vite");
  try {
    await build({ configFile: join(consoleDir, "vite.config.ts"), root: consoleDir, logLevel: "warn", build: { outDir: building, emptyOutDir: true } });
    await writeFile(join(building, SOURCE_HASH_FILE), `${hash}\n`);
    await rename(dist, retired).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== "ENOENT") throw error;
    });
    await rename(building, dist).catch(async (error: NodeJS.ErrnoException) => {
      // Another build put its dist in between our two renames: fine if it was built from these same sources.
      if ((error.code !== "ENOTEMPTY" && error.code !== "EEXIST") || (await consoleBuildStaleness(consoleDir)) !== null) throw error;
    });
  } finally {
    await rm(building, { recursive: true, force: true });
    await rm(retired, { recursive: true, force: true });
  }
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
