import * as v from "valibot";

export const BOOLEAN_RULE = "must be a boolean";

/** A flag whose omission and null both mean `fallback`. */
export function booleanOr(fallback: boolean) {
  return v.nullish(v.boolean(BOOLEAN_RULE), fallback);
}
