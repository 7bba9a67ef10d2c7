import type { FieldProblem } from "./api";

/** The label a form shows for each field the API names. */
const FIELD_LABELS: Readonly<Record<string, string>> = {
  name: "Name",
  base_url: "Base URL",
  token: "API token",
  rate_limit: "Requests per second",
  sync_since: "Start date",
  freshness_hours: "Stale after (hours)",
  audit_schedule: "Audits",
};

/** The API's rules as a person says them; anything not listed reads as the API wrote it, minus the field's name. */
const PLAIN_RULES: readonly (readonly [RegExp, string])[] = [
  [/^is required$/, "is needed"],
  [/^must be an integer from (\d+) to (\d+)$/, "must be a whole number from $1 to $2"],
  [/^must be printable ASCII without spaces$/, "must be letters, digits and symbols, without spaces"],
  [/^must be an ISO-8601 timestamp.*$/, "must be a date"],
  [/^must be a string$/, "must be text"],
  [/^base_url /, ""],
  [/must be an absolute http or https URL/, "must be a full web address, starting with https://"],
];

export function fieldLabel(field: string): string {
  return FIELD_LABELS[field] ?? field;
}

/** "Requests per second must be a whole number from 1 to 1000". */
export function plainProblem(problem: FieldProblem): string {
  const rule = PLAIN_RULES.reduce((text, [pattern, plain]) => text.replace(pattern, plain), problem.rule);
  return `${fieldLabel(problem.field)} ${rule}`;
}
