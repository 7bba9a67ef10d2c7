import * as v from "valibot";

/** How bad breaking a rule is: `error` fails an entity or loses data, `warning` degrades it. */
export const SEVERITIES = ["error", "warning"] as const;
export const SeveritySchema = v.picklist(SEVERITIES);
export type Severity = v.InferOutput<typeof SeveritySchema>;
