import { readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { ALL_RULES } from "../../lambdas/preflight/rules/catalog";

const doc = readFileSync(new URL("../../docs/rules.md", import.meta.url), "utf8");

/** Each `### `id`` section of docs/rules.md: its severity and its Fix line. */
function sections(): { id: string; severity: string | undefined; fix: string | undefined }[] {
  return [...doc.matchAll(/^### `([^`]+)`\n\n\*\*(error|warning)\*\*[^\n]*\n\*\*Fix:\*\* ([^\n]*)$/gm)].map((m) => ({ id: m[1]!, severity: m[2], fix: m[3] }));
}

describe("the kit's catalog is the one list of rule ids", () => {
  test("rule ids are unique and each has a severity, a spec section and a fix", () => {
    expect(new Set(ALL_RULES.map((r) => r.id)).size).toBe(ALL_RULES.length);
    for (const r of ALL_RULES) {
      expect(r.spec, r.id).not.toBe("");
      expect(r.fix, r.id).toMatch(/^[A-Z].*\.$/);
    }
  });

  test("docs/rules.md has one section per rule of the catalog, in its order, with the catalog's severity and fix", () => {
    expect([...doc.matchAll(/^### /gm)].length).toBe(sections().length);
    expect(sections()).toEqual(ALL_RULES.map((r) => ({ id: r.id, severity: r.severity, fix: r.fix })));
  });
});
