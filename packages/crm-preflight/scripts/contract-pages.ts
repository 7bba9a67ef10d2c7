/**
 * The contract pages the package carries, written from what the service itself reads: the catalog's
 * rules (id, severity, spec section, fix), the sentence docs/rules.md gives each rule's check, and the
 * short contract of docs/source-api.md. Pure: the build (build.ts) reads the files and writes the pages.
 */
import type { RuleInfo } from "../../../lambdas/domain/source-contract/rule";

/** The page of every rule, and the page of every spec section a finding's `spec` names, inside the package. */
export const RULES_PAGE = "docs/rules.md";
export const CONTRACT_PAGE = "docs/contract.md";
export const OPENAPI_FILE = "source-api.openapi.json";

/** GitHub's anchor for a heading, as test/architecture/doc-links.unit.test.ts reads them (code spans unwrapped). */
export function slugOf(heading: string): string {
  return heading
    .replace(/`/g, "")
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "")
    .replace(/ /g, "-");
}

/** Each rule's "Checks that ..." sentence from docs/rules.md (its `### `id`` section), by rule id. */
export function checksOf(rulesDoc: string): Map<string, string> {
  const sections = rulesDoc.matchAll(/^### `([^`]+)`\n\n\*\*(?:error|warning)\*\*[^\n]*? seen by: [^\n]*?\. (Checks [^\n]*)$/gm);
  return new Map([...sections].map((m) => [m[1]!, m[2]!]));
}

/** The table of docs/source-api.md's "The contract in short", as written there. */
export function contractInShort(sourceApiDoc: string): string {
  const section = /^## The contract in short\n\n([\s\S]*?)\n(?=## )/m.exec(sourceApiDoc);
  if (section === null) throw new Error('docs/source-api.md has no section "The contract in short"');
  return section[1]!.trim();
}

/** The spec's sections, each once, in the order the rules first cite them. */
export function specSections(rules: readonly RuleInfo[]): string[] {
  return [...new Set(rules.map((r) => r.spec))];
}

/** One section per rule the command reports: severity, the spec section (a link into the contract page), what it checks, the fix. */
export function rulesPage(rules: readonly RuleInfo[], checks: ReadonlyMap<string, string>): string {
  const lines = [
    "# Every rule crm-preflight checks",
    "",
    "A finding's `rule` is a section below; its `spec` is a section of [contract.md](contract.md).",
    "An **error** finding makes the command exit 1; a **warning** does not.",
  ];
  for (const rule of rules) {
    const check = checks.get(rule.id);
    if (check === undefined) throw new Error(`docs/rules.md gives no "Checks that ..." sentence for ${rule.id}`);
    lines.push(
      "",
      `## \`${rule.id}\``,
      "",
      `**${rule.severity}** · spec: [${rule.spec}](contract.md#${slugOf(rule.spec)}). ${check}`,
      "",
      `**Fix:** ${rule.fix}`,
    );
  }
  return `${lines.join("\n")}\n`;
}

/** The contract in short, then one section per spec section a rule cites, listing the rules that state it. */
export function contractPage(rules: readonly RuleInfo[], inShort: string, checks: ReadonlyMap<string, string>): string {
  const lines = [
    "# The source API's contract",
    "",
    "What the analytics service asks of a customer's source API (spec version 1.0), in short; then every",
    "section of the spec a finding cites (its `spec`), with the rules that check it. The machine-readable",
    `contract is the OpenAPI 3.1 document \`${OPENAPI_FILE}\` beside this folder.`,
    "",
    "## The contract in short",
    "",
    inShort,
    "",
    "## The spec's sections the rules cite",
  ];
  for (const spec of specSections(rules)) {
    lines.push("", `### ${spec}`, "");
    for (const rule of rules.filter((r) => r.spec === spec)) {
      lines.push(`- [\`${rule.id}\`](rules.md#${slugOf(rule.id)}) (${rule.severity}): ${checks.get(rule.id) ?? ""} Fix: ${rule.fix}`);
    }
  }
  return `${lines.join("\n")}\n`;
}
