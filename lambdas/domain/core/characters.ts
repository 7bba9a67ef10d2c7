/**
 * The spec counts text in characters; we read that as Unicode code points, so
 * a cut never splits a surrogate pair (300 '😀' become 255 whole '😀').
 */

export function codePointLength(text: string): number {
  let count = 0;
  for (const _ of text) count += 1;
  return count;
}

/** Keeps the first `max` code points; a surrogate pair is kept or dropped whole. */
export function truncateText(text: string, max: number): string {
  // Fewer UTF-16 units than `max` means fewer code points too: nothing to cut.
  if (text.length <= max) return text;
  let end = 0;
  let count = 0;
  for (const char of text) {
    if (count === max) break;
    end += char.length;
    count += 1;
  }
  return text.slice(0, end);
}

const LONE_SURROGATE = /\p{Cs}/u;
const LONE_SURROGATES = /\p{Cs}/gu;

/** Whether the text is valid Unicode: no half of a surrogate pair on its own (which UTF-8 cannot encode). */
export function isWellFormedText(text: string): boolean {
  return !LONE_SURROGATE.test(text);
}

/** The text with each lone surrogate written as its JSON escape (`\ud800`), so it survives any UTF-8 store or log. */
export function escapeLoneSurrogates(text: string): string {
  return text.replace(LONE_SURROGATES, (unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, "0")}`);
}
