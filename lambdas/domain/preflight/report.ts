import * as v from "valibot";
import { SEVERITIES } from "../core/severity";

export { SEVERITIES, type Severity } from "../core/severity";

/** One broken rule at one endpoint, as `--format json` prints it. */
export const FindingSchema = v.strictObject({
  rule: v.string(),
  severity: v.picklist(SEVERITIES),
  /** The endpoint path (`/leads`) the finding is about. */
  endpoint: v.string(),
  /** What came back and how to fix it; never the token. */
  detail: v.string(),
  /** The spec section that states the rule. */
  spec: v.string(),
  /** Method and URL of a request that shows the finding; never the token. */
  request: v.string(),
});
export type Finding = v.InferOutput<typeof FindingSchema>;

/** The whole report: `--format json` prints exactly this object. */
export const ReportSchema = v.strictObject({
  base_url: v.string(),
  /** True when no finding is an error (warnings allowed). */
  conforms: v.boolean(),
  findings: v.array(FindingSchema),
  /** Ids of the rules that ran. */
  checked: v.array(v.string()),
});
export type Report = v.InferOutput<typeof ReportSchema>;

/** A rule that ran at an endpoint: one JUnit testcase each. */
export interface CheckedPair {
  readonly rule: string;
  readonly endpoint: string;
}

/** What a run produces: the report and, for JUnit, which rule ran at which endpoint. */
export interface PreflightResult {
  readonly report: Report;
  readonly checkedPairs: readonly CheckedPair[];
}

export const EXIT_CONFORMS = 0;
export const EXIT_ERROR_FINDING = 1;
export const EXIT_COULD_NOT_RUN = 2;

/** 0 when the source conforms (warnings allowed), 1 when any finding is an error. */
export function exitCodeOf(report: Report): typeof EXIT_CONFORMS | typeof EXIT_ERROR_FINDING {
  return report.conforms ? EXIT_CONFORMS : EXIT_ERROR_FINDING;
}
