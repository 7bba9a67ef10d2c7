import { readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { ALL_RULES } from "../../../../lambdas/domain/source-contract/rules/catalog";
import { SILENT_RECORD_RULES } from "../../../../lambdas/domain/source-contract/rules/record-rules";
import { referenceStage, referenceUser } from "../../../../lambdas/domain/source-contract/rules/reference-rules";

const doc = readFileSync(new URL("../../../../docs/rules.md", import.meta.url), "utf8");
const sourceApiDoc = readFileSync(new URL("../../../../docs/source-api.md", import.meta.url), "utf8");

/** The rules a sync run can name in its findings: those record-findings.ts checks on every accepted record. */
const RUN_FINDING_RULES = [...SILENT_RECORD_RULES, referenceStage, referenceUser].map((r) => r.id);

/** Each rule's "seen by" in docs/rules.md: where it is reported (the kit, every sync, or both). */
function seenBy(): Map<string, string> {
  return new Map([...doc.matchAll(/^### `([^`]+)`\n\n\*\*(?:error|warning)\*\*[^\n]*· seen by: ([^\n]*)$/gm)].map((m) => [m[1]!, m[2]!]));
}

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

  test("docs/rules.md says \"every sync counts it\" of exactly the rules a run's findings can name", () => {
    expect([...seenBy().keys()]).toEqual(ALL_RULES.map((r) => r.id));
    const counted = [...seenBy()].filter(([, seen]) => seen.includes("every sync counts it")).map(([id]) => id);
    expect(counted.sort()).toEqual([...RUN_FINDING_RULES].sort());
  });

  test("docs/source-api.md names every rule a sync run counts, so the customer's developer can find each silent loss there", () => {
    // Each id from the catalog whose "seen by" includes the run's findings, named in backticks (its detail is one link away, in rules.md).
    const counted = [...seenBy()].filter(([, seen]) => seen.includes("every sync counts it")).map(([id]) => id);
    expect(counted.length).toBeGreaterThan(0);
    for (const id of counted) expect(sourceApiDoc, id).toContain(`\`${id}\``);
  });
});
