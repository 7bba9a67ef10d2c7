/**
 * Regular-expression pieces that every JSON Schema regex engine reads alike (ECMA-262 with or without `u`, Python's
 * re, Go's RE2, Java, PCRE): the OpenAPI documents publish the code's own patterns, and a generated client or test
 * generator must accept exactly what the API does. So no `\d`, `\s`, `\w` (Unicode-wide in Python), no `\p{...}`,
 * no lookaround (RE2 has none), no `\u` escape (RE2 has none): ASCII ranges, `\xHH`, and literal characters.
 */

/** An ASCII digit: `\d` is any Unicode digit in Python's re. */
export const DIGIT = "[0-9]";

/** The C0 and C1 control characters (Unicode's Cc), as the inside of a character class. */
export const CONTROL_CHARACTERS = "\\x00-\\x1F\\x7F-\\x9F";

/**
 * What ECMAScript's `\s` and String.prototype.trim treat as white space besides the control characters (tab, line
 * feed, ...): written as literal characters, the inside of a character class.
 */
export const NON_CONTROL_WHITESPACE = " \u00A0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000\uFEFF";

/** ECMAScript's `\s`, spelled out: the inside of a character class. */
export const WHITESPACE = `\\x09-\\x0D${NON_CONTROL_WHITESPACE}`;

/**
 * The source each portable RegExp was built from. RegExp's own `source` writes U+2028 and U+2029 as `\u2028`, an
 * escape Go's RE2 does not read, so the documents publish this string instead (patternSourceOf).
 */
const SOURCES = new WeakMap<RegExp, string>();

/** A RegExp from a portable source, which the OpenAPI documents publish as it is written. */
export function portableRegExp(source: string): RegExp {
  const regexp = new RegExp(source);
  SOURCES.set(regexp, source);
  return regexp;
}

/** The pattern a document publishes for `regexp`: its portable source, else RegExp's own. */
export function patternSourceOf(regexp: RegExp): string {
  return SOURCES.get(regexp) ?? regexp.source;
}

/** Text on one line with something in it: no control character, and not white space alone. */
export const LINE_OF_TEXT = portableRegExp(`^[^${CONTROL_CHARACTERS}]*[^${CONTROL_CHARACTERS}${NON_CONTROL_WHITESPACE}][^${CONTROL_CHARACTERS}]*$`);
