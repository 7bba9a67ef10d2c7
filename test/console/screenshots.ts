import { join } from "node:path";
import type { Page } from "playwright-core";

/**
 * Where `npm run screenshots` (bin/screenshots.ts) wants the console's screenshots; unset in `npm test`, which
 * then takes none, so a test run leaves the tracked PNGs in docs/screenshots as it found them.
 */
export const SCREENSHOTS_ENV = "CONSOLE_SCREENSHOTS";

/** A full-page screenshot named `name`, when screenshots are being retaken; nothing otherwise (a picture asserts nothing). */
export async function shot(page: Page, name: string): Promise<void> {
  const dir = process.env[SCREENSHOTS_ENV];
  if (dir === undefined || dir === "") return;
  await page.screenshot({ path: join(dir, `${name}.png`), fullPage: true });
}
