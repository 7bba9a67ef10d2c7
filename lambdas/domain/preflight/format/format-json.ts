import type { PreflightResult } from "../report";

/** `--format json`: the report object, one line, nothing else. */
export function formatJson({ report }: PreflightResult): string {
  return `${JSON.stringify(report)}\n`;
}
