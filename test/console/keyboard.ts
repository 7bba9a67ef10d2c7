import type { Locator, Page } from "playwright-core";

/**
 * Moves focus to `target` as a keyboard user does: Tab (Shift+Tab when `backwards`) from wherever focus is, one
 * press at a time, until the target has it. No programmatic focus: a control outside the tab order, or hidden
 * from it, fails here, named, after `limit` presses. Waits for the target to be visible first (a DOM state).
 */
export async function tabTo(page: Page, target: Locator, options: { readonly backwards?: boolean; readonly limit?: number } = {}): Promise<void> {
  await target.waitFor();
  const key = options.backwards === true ? "Shift+Tab" : "Tab";
  const limit = options.limit ?? 60;
  for (let presses = 0; presses <= limit; presses += 1) {
    if (await target.evaluate((element) => element === element.ownerDocument.activeElement)) return;
    await page.keyboard.press(key);
  }
  const focused = await page.evaluate<string>(`document.activeElement?.outerHTML.slice(0, 120) ?? "nothing"`);
  throw new Error(`${key} did not reach ${target.toString()} in ${limit} presses (focus is on ${focused})`);
}

/** Replaces a focused field's text by typing, as a keyboard user does: select all, then type over it. */
export async function typeOver(page: Page, text: string): Promise<void> {
  await page.keyboard.press("ControlOrMeta+A");
  await page.keyboard.type(text);
}
