import type { Page } from "playwright-core";
import { expect } from "vitest";

/**
 * What an owner must never read on a screen: the API's field names, its routes and methods, and the service's
 * internal terms. A record's stored JSON (<pre>) and a rule's name for developers (<code>) are shown on purpose and
 * left out.
 */
const INTERNAL = /\b(?:sync_since|base_url|rate_limit|updated_at|created_at|freshness_hours|audit_schedule|data_as_of|watermarks?|silent rules?|onboarding API|unresolved won\/lost)\b|\/api\/v1|\b(?:GET|POST|PATCH|DELETE) (?:\.\.\.)?\//;

/** Fails naming the words when any visible text of the page, outside <pre> and <code>, is an internal term. */
export async function expectOwnerWords(page: Page, screen: string): Promise<void> {
  const text = await page.evaluate<string>(`(() => {
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    const parts = [];
    for (let node = walker.nextNode(); node !== null; node = walker.nextNode()) {
      const parent = node.parentElement;
      if (parent === null || parent.closest("pre, code, script, style") !== null || !parent.checkVisibility()) continue;
      parts.push(node.textContent);
    }
    return parts.join(" ");
  })()`);
  expect(text.match(INTERNAL)?.[0] ?? null, `internal words on ${screen}`).toBeNull();
}
