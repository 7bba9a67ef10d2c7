import * as v from "valibot";

export const INTEGER_RULE = "must be an integer";

/** A JSON integer (no fraction, no numeric string); omitted or null reads as 0. */
export const integerOrZero = v.nullish(v.pipe(v.number(INTEGER_RULE), v.integer(INTEGER_RULE)), 0);
