import * as v from "valibot";
import { PRICE_EXPONENT_MAX_DIGITS } from "../../core/limits";
import { DIGIT, portableRegExp, WHITESPACE } from "../../core/portable-patterns";

export const PRICE_RULE = "must be a number or a numeric string";

// Decimal with optional sign and exponent; surrounding whitespace (ECMAScript's \s) is fine. Spelled portably: the
// source API's OpenAPI document publishes this pattern (core/portable-patterns.ts).
const NUMERIC = portableRegExp(`^[${WHITESPACE}]*[+-]?(?:${DIGIT}+(?:\\.${DIGIT}*)?|\\.${DIGIT}+)(?:[eE][+-]?${DIGIT}+)?[${WHITESPACE}]*$`);
// Only ever run on text NUMERIC has accepted, and never published.
const PARTS = /^\s*([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?\s*$/;

/**
 * A stored price: the whole part, exactly. A JSON number while it is a safe
 * integer (|n| <= 2^53 - 1), which every JSON reader holds exactly; beyond,
 * its decimal digits as a string (`"-123456789012345678901234"`), which no
 * reader can round.
 */
export type WholeAmount = number | string;

/** A whole amount as the API documents it: an integer, or beyond 2^53 its decimal digits as a string. */
export const WholeAmountSchema = v.pipe(
  v.union([v.pipe(v.number(), v.integer(), v.safeInteger()), v.pipe(v.string(), v.regex(/^-?[1-9][0-9]{15,}$/))]),
  v.description("A whole amount: a JSON integer while it is within ±(2^53 - 1), else its exact decimal digits as a string"),
);

/** The whole part of a numeric text, as decimal digits with an optional `-`; null when an exponent would write too many digits. */
export function wholeDigits(text: string): string | null {
  const [, sign = "", whole = "", fraction = "", exponent = "0"] = PARTS.exec(text) ?? [];
  const digits = `${whole}${fraction}`;
  const shift = Number(exponent);
  // Where the decimal point falls within `digits`, the exponent applied.
  const point = whole.length + shift;
  // An exponent may not write more digits than a double reaches (1e308 has 309); digits written out are kept whatever their count.
  if (!Number.isFinite(shift) || point > Math.max(PRICE_EXPONENT_MAX_DIGITS, digits.length)) return null;
  const kept = point <= 0 ? "" : point >= digits.length ? digits.padEnd(point, "0") : digits.slice(0, point);
  const trimmed = kept.replace(/^0+/, "");
  return trimmed === "" ? "0" : `${sign === "-" ? "-" : ""}${trimmed}`;
}

/** A whole amount in its stored form: a number while exact, else its digits. */
export function storedWhole(digits: string): WholeAmount {
  const amount = BigInt(digits);
  return amount >= BigInt(Number.MIN_SAFE_INTEGER) && amount <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(amount) : digits;
}

/**
 * A stored price (or anything else) as an exact whole amount: 0n for what is
 * not one. What sums of prices (revenue) add, so that no sum rounds.
 */
export function wholeAmountOf(value: unknown): bigint {
  if (typeof value === "number") return Number.isInteger(value) ? BigInt(value) : 0n;
  return typeof value === "string" && /^-?\d+$/.test(value) ? BigInt(value) : 0n;
}

/** The total in its stored form (a number while exact, else its digits). */
export function wholeTotal(values: readonly unknown[]): WholeAmount {
  return storedWhole(values.reduce<bigint>((sum, value) => sum + wholeAmountOf(value), 0n).toString());
}

/**
 * Lead price: a number or numeric string kept as its whole part; omitted is 0,
 * null fails. A numeric string keeps its whole part exactly, whatever its
 * length; a JSON number is what JSON.parse reads, an IEEE 754 double, so
 * beyond 2^53 it is the nearest double (docs/design.md).
 */
export const price = v.pipe(
  v.optional(v.union([v.number(PRICE_RULE), v.pipe(v.string(PRICE_RULE), v.regex(NUMERIC, PRICE_RULE))], PRICE_RULE), 0),
  v.transform((amount): string | null => {
    if (typeof amount === "string") return wholeDigits(amount);
    // JSON has no Infinity; a number beyond a double's range (1e999) parses as one and is no number.
    return Number.isFinite(amount) ? BigInt(Math.trunc(amount)).toString() : null;
  }),
  v.check((digits): digits is string => digits !== null, PRICE_RULE),
  v.transform((digits): WholeAmount => storedWhole(digits as string)),
);
