import { cp, mkdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { CONSOLE_DIR, consoleBuildStaleness, ensureConsoleBuilt } from "../../lambdas/runtimes/local/console-build";

// Inside the repository (git-ignored) so the copy's vite.config.ts resolves `vite` from node_modules.
const WORK = fileURLToPath(new URL("./.artifacts/console-build/", import.meta.url));

describe("npm start builds the console when the build is missing or stale", () => {
  afterAll(async () => rm(WORK, { recursive: true, force: true }));

  it("builds when missing, keeps a fresh build, rebuilds after a source changes", async () => {
    await rm(WORK, { recursive: true, force: true });
    await mkdir(WORK, { recursive: true });
    const dir = join(WORK, "console");
    // Sources only: not the build, nor a build another test run is writing right now.
    await cp(CONSOLE_DIR, dir, { recursive: true, filter: (path) => !/^\/(dist|\.dist-)/.test(path.slice(CONSOLE_DIR.length)) });

    expect(await consoleBuildStaleness(dir)).toBe("missing");
    expect(await ensureConsoleBuilt(dir)).toBe("built");
    expect(await consoleBuildStaleness(dir)).toBeNull();
    expect(await ensureConsoleBuilt(dir)).toBe("fresh");

    await writeFile(join(dir, "src", "styles.css"), "\n/* changed */\n", { flag: "a" });
    expect(await consoleBuildStaleness(dir)).toBe("stale");
    expect(await ensureConsoleBuilt(dir)).toBe("built");
    expect(await consoleBuildStaleness(dir)).toBeNull();
  }, 120_000);
});
