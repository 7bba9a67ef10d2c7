import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { AxeResults, ImpactValue } from "axe-core";
import type { Page } from "playwright-core";
import { expect } from "vitest";

/** axe-core's own bundle, read once per test file. */
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
/** What fails a screen: axe's two worst impacts (minor and moderate are left to review). */
const BLOCKING: readonly ImpactValue[] = ["serious", "critical"];

/**
 * Runs axe-core over the page as it is now (WCAG 2.x A and AA rules, plus axe's best practices) and fails, naming
 * each rule and the elements that break it, on any serious or critical violation. axe is evaluated through the
 * DevTools protocol, which the page's CSP does not govern: the page itself never loads it. Call it once a screen
 * has rendered what it is meant to show (wait for that first); it is idempotent and can run on every screen.
 */
export async function expectAccessible(page: Page, screen: string = page.url()): Promise<void> {
  if (!(await page.evaluate<boolean>(`typeof window.axe === "object"`))) await page.evaluate(AXE_SOURCE);
  const results = await page.evaluate<AxeResults>(`axe.run(document, { resultTypes: ["violations"] })`);
  const blocking = results.violations
    .filter((violation) => violation.impact !== undefined && violation.impact !== null && BLOCKING.includes(violation.impact))
    .map((violation) => `${violation.impact} ${violation.id}: ${violation.help} (${violation.nodes.map((node) => node.target.join(" ")).join(", ")})`);
  expect(blocking, `axe-core on ${screen}`).toEqual([]);
}
