import * as v from "valibot";

export const PRICE_RULE = "must be a number or a numeric string";

// Decimal with optional sign and exponent; surrounding whitespace is fine.
const NUMERIC = /^\s*[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?\s*$/;

/** Lead price: a number or numeric string kept as its whole part; omitted is 0, null fails. */
export const price = v.pipe(
  v.optional(v.union([v.number(PRICE_RULE), v.pipe(v.string(PRICE_RULE), v.regex(NUMERIC, PRICE_RULE))], PRICE_RULE), 0),
  v.transform(Number),
  v.check((amount) => Number.isFinite(amount), PRICE_RULE), // "1e999" is numeric text but no number
  v.transform((amount) => Math.trunc(amount) || 0), // `|| 0` turns -0 into 0
);
