import * as v from "valibot";

/** A JSON object: not null and not an array. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The rule of a missing required key is the rule of its schema. */
function missingKeyRule(entries: v.ObjectEntries, issue: v.LooseObjectIssue, typeRule: string): string {
  const key = issue.path?.[0]?.key;
  if (typeof key !== "string") return typeRule;
  const message = (entries[key] as { message?: unknown } | undefined)?.message;
  return typeof message === "string" ? message : "is required";
}

/**
 * A loose object (unknown keys pass through) that also rejects arrays, which
 * valibot's object schemas accept.
 */
export function plainObject<const TEntries extends v.ObjectEntries>(entries: TEntries, typeRule: string) {
  const fields = v.looseObject(entries, (issue) => missingKeyRule(entries, issue, typeRule));
  return v.pipe(v.custom<v.InferInput<typeof fields>>(isPlainObject, typeRule), fields);
}

/** A source record: a JSON object with the given fields. */
export function recordObject<const TEntries extends v.ObjectEntries>(entries: TEntries) {
  return plainObject(entries, "must be a JSON object");
}
