import type { Finding, PreflightResult } from "../report";

/** `--format text`: findings grouped by endpoint, a line each with the rule id and the fix, then a summary line. */
export function formatText({ report }: PreflightResult): string {
  const lines = [`Preflight of ${report.base_url}`];
  const byEndpoint = new Map<string, Finding[]>();
  for (const finding of report.findings) byEndpoint.set(finding.endpoint, [...(byEndpoint.get(finding.endpoint) ?? []), finding]);
  for (const [endpoint, findings] of [...byEndpoint].sort(([a], [b]) => a.localeCompare(b))) {
    lines.push("", endpoint);
    for (const finding of findings) {
      lines.push(`  ${finding.severity === "error" ? "ERROR  " : "WARNING"} ${finding.rule}: ${finding.detail}`);
      lines.push(`          spec: ${finding.spec}; seen in: ${finding.request}`);
    }
  }
  const errors = report.findings.filter((f) => f.severity === "error").length;
  const warnings = report.findings.length - errors;
  lines.push(
    "",
    `${report.conforms ? "CONFORMS" : "DOES NOT CONFORM"}: ${errors} error(s), ${warnings} warning(s), ${report.checked.length} rules checked`,
  );
  return `${lines.join("\n")}\n`;
}
