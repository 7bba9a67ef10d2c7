import { readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { KIT_RULES } from "../../../../lambdas/domain/source-contract/rules/catalog";
import {
  checksOf,
  contractInShort,
  contractPage,
  rulesPage,
  slugOf,
  specSections,
} from "../../../../packages/crm-preflight/scripts/contract-pages";

/**
 * The pages the package carries, written from the catalog and the docs without packing (the packed
 * package itself: test/packages/crm-preflight/packed-package.e2e.test.ts). A rule the docs do not explain stops the build.
 */

const rulesDoc = readFileSync(new URL("../../../../docs/rules.md", import.meta.url), "utf8");
const sourceApiDoc = readFileSync(new URL("../../../../docs/source-api.md", import.meta.url), "utf8");
const checks = checksOf(rulesDoc);
const pages = {
  "rules.md": rulesPage(KIT_RULES, checks),
  "contract.md": contractPage(KIT_RULES, contractInShort(sourceApiDoc), checks),
};

const headings = (page: string): string[] => [...page.matchAll(/^#{1,6} (.+)$/gm)].map((m) => m[1]!);

describe("the package's contract pages", () => {
  test("docs/rules.md says what every rule of the kit checks, so the rules page can be written", () => {
    expect(KIT_RULES.filter((rule) => !checks.has(rule.id)).map((rule) => rule.id)).toEqual([]);
    for (const rule of KIT_RULES) expect(checks.get(rule.id), rule.id).toMatch(/^Checks .+\.$/);
  });

  test("the rules page: one section per rule of the kit, in the catalog's order, with its severity, spec section and fix", () => {
    expect(headings(pages["rules.md"]).slice(1)).toEqual(KIT_RULES.map((rule) => `\`${rule.id}\``));
    for (const rule of KIT_RULES) {
      expect(pages["rules.md"]).toContain(`**${rule.severity}** · spec: [${rule.spec}](contract.md#${slugOf(rule.spec)}). ${checks.get(rule.id)}`);
      expect(pages["rules.md"]).toContain(`**Fix:** ${rule.fix}`);
    }
  });

  test("the contract page: the contract in short, then one section per spec section a finding can cite, naming each rule that cites it", () => {
    expect(pages["contract.md"]).toContain(contractInShort(sourceApiDoc));
    expect(contractInShort(sourceApiDoc)).toMatch(/^\| \| \|\n\|---\|---\|\n\| Endpoints \|/);
    const cited = specSections(KIT_RULES);
    expect(headings(pages["contract.md"]).filter((h) => cited.includes(h))).toEqual(cited);
    for (const rule of KIT_RULES) expect(pages["contract.md"]).toContain(`- [\`${rule.id}\`](rules.md#${slugOf(rule.id)}) (${rule.severity}): `);
  });

  test("every link on both pages names a heading of a page beside it", () => {
    const links = Object.entries(pages).flatMap(([from, page]) => [...page.matchAll(/\]\(([^)#]*)(?:#([^)]*))?\)/g)].map((m) => ({ from, file: m[1]!, anchor: m[2] })));
    expect(links.length).toBeGreaterThan(2 * KIT_RULES.length);
    for (const { from, file, anchor } of links) {
      const target = pages[file as keyof typeof pages];
      expect(target, `${from}: ${file}`).toBeDefined();
      if (anchor !== undefined) expect(headings(target!).map(slugOf), `${from}: ${file}#${anchor}`).toContain(anchor);
    }
  });

  test("a rule docs/rules.md does not explain stops the build, naming the rule; so does a source-api.md without its contract in short", () => {
    const withoutFirst = new Map([...checks].filter(([id]) => id !== KIT_RULES[0]!.id));
    expect(() => rulesPage(KIT_RULES, withoutFirst)).toThrow(`docs/rules.md gives no "Checks that ..." sentence for ${KIT_RULES[0]!.id}`);
    expect(() => contractInShort(sourceApiDoc.replace("## The contract in short", "## In short"))).toThrow(/no section "The contract in short"/);
  });
});
