import * as v from "valibot";
import { TEXT_LIMITS } from "../../core/limits";

/** Length in Unicode code points, which is what the spec's "characters" means. */
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

export const TEXT_RULE = "must be a string or null";
export const ID_RULE = `must be a string of 1 to ${TEXT_LIMITS.id} characters`;

/** Optional nullable text kept whole (references without a stated max, task text). */
export const nullableText = v.nullish(v.string(TEXT_RULE), null);

/** Optional nullable text silently truncated to `max` characters. */
export function truncatedText(max: number) {
  return v.pipe(
    nullableText,
    v.transform((text) => (text === null ? null : truncateText(text, max))),
  );
}

/** lead_id / contact_id on calls, tasks and events. */
export const referenceText = truncatedText(TEXT_LIMITS.reference);

/** Any record's `id`: over-length fails the page instead of being truncated. */
export const recordId = v.pipe(
  v.string(ID_RULE),
  v.check((id) => id.length > 0 && codePointLength(id) <= TEXT_LIMITS.id, ID_RULE),
);
