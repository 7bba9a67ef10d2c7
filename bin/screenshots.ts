/**
 * `npm run screenshots`: retakes the console's screenshots in docs/screenshots by running its browser tests with
 * CONSOLE_SCREENSHOTS set (test/console/screenshots.ts). `npm test` takes none, so it leaves the tracked PNGs as
 * they are. The folder is emptied first, so it holds exactly the screens the tests show today.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, rmSync } from "node:fs";
import { fileURLToPath } from "node:url";

const dir = fileURLToPath(new URL("../docs/screenshots/", import.meta.url));
mkdirSync(dir, { recursive: true });
for (const file of readdirSync(dir)) if (file.endsWith(".png")) rmSync(`${dir}${file}`);
const run = spawnSync("npx", ["vitest", "run", "test/console/", ...process.argv.slice(2)], {
  stdio: "inherit",
  env: { ...process.env, CONSOLE_SCREENSHOTS: dir },
});
process.exit(run.status ?? 1);
