import { redactSecrets } from "./redact-token";
import type { CheckedPair, Finding, PreflightResult } from "./report";
import type { Rule } from "../source-contract/rule";

interface Collected {
  finding: Finding;
  more: number;
}

/**
 * Runs rule checks and keeps one finding per (rule, endpoint): the first
 * example and a count of the others, so a bad field on 500,000 records is one
 * line. Every text passes through redaction before it is kept.
 */
export class FindingCollector {
  private readonly findings = new Map<string, Collected>();
  private readonly checked = new Map<string, CheckedPair>();

  constructor(private readonly secrets: () => readonly string[]) {}

  /** Runs `rule` on `observation`; true when it found something. */
  apply<TObservation>(rule: Rule<TObservation>, endpoint: string, observation: TObservation, request: string): boolean {
    this.ran(rule, endpoint);
    const detail = rule.check(observation);
    if (detail === null) return false;
    const key = `${rule.id} ${endpoint}`;
    const existing = this.findings.get(key);
    if (existing) {
      existing.more++;
      return true;
    }
    const redact = (text: string) => redactSecrets(text, this.secrets());
    this.findings.set(key, {
      finding: { rule: rule.id, severity: rule.severity, endpoint, detail: redact(detail), spec: rule.spec, request: redact(request) },
      more: 0,
    });
    return true;
  }

  /** Marks a rule as run at an endpoint without a check (nothing to look at there). */
  ran(rule: { readonly id: string }, endpoint: string): void {
    this.checked.set(`${rule.id} ${endpoint}`, { rule: rule.id, endpoint });
  }

  /** The report; `ruleOrder` lists rule ids in the order `checked` shows them. */
  result(baseUrl: string, ruleOrder: readonly string[] = []): PreflightResult {
    const findings = [...this.findings.values()].map(({ finding, more }) =>
      more === 0 ? finding : { ...finding, detail: `${finding.detail} (and ${more} more like it)` },
    );
    const rank = (rule: string) => (ruleOrder.includes(rule) ? ruleOrder.indexOf(rule) : ruleOrder.length);
    const checkedPairs = [...this.checked.values()].sort((a, b) => rank(a.rule) - rank(b.rule));
    return {
      report: {
        base_url: redactSecrets(baseUrl, this.secrets()),
        conforms: findings.every((finding) => finding.severity !== "error"),
        findings,
        checked: [...new Set(checkedPairs.map((pair) => pair.rule))],
      },
      checkedPairs,
    };
  }
}
