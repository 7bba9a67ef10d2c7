import type { PreflightResult } from "../report";

const escapeXml = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;" })[c]!);

/**
 * `--format junit`: one testcase per rule and endpoint that ran. An error
 * finding is a failure; a warning passes and is shown in system-out, since
 * JUnit has no warnings.
 */
export function formatJunit({ report, checkedPairs }: PreflightResult): string {
  const cases = checkedPairs.map(({ rule, endpoint }) => {
    const finding = report.findings.find((f) => f.rule === rule && f.endpoint === endpoint);
    const open = `    <testcase classname="preflight${escapeXml(endpoint.replace(/\//g, "."))}" name="${escapeXml(rule)}">`;
    if (finding === undefined) return `${open}</testcase>`;
    const text = escapeXml(`${finding.detail}\nspec: ${finding.spec}\nrequest: ${finding.request}`);
    return finding.severity === "error"
      ? `${open}\n      <failure type="${escapeXml(rule)}" message="${escapeXml(finding.detail)}">${text}</failure>\n    </testcase>`
      : `${open}\n      <system-out>WARNING ${text}</system-out>\n    </testcase>`;
  });
  const failures = report.findings.filter((f) => f.severity === "error").length;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="crm-preflight" tests="${cases.length}" failures="${failures}">`,
    `  <testsuite name="${escapeXml(report.base_url)}" tests="${cases.length}" failures="${failures}">`,
    ...cases,
    "  </testsuite>",
    "</testsuites>",
    "",
  ].join("\n");
}
