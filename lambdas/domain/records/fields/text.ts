import * as v from "valibot";
import { codePointLength, isWellFormedText, truncateText } from "../../core/characters";
import { TEXT_LIMITS } from "../../core/limits";

export const TEXT_RULE = "must be a string or null";
export const ID_RULE = `must be a string of 1 to ${TEXT_LIMITS.id} characters`;
/**
 * An id holding half of a surrogate pair (`"a\\ud800"`) cannot be stored as
 * sent: DynamoDB keys are UTF-8, which has no form for it, so two such ids
 * would become one record.
 */
export const ID_TEXT_RULE = "must be valid Unicode text: it holds an unpaired surrogate escape (\\uD800 to \\uDFFF), which cannot be stored as sent, so distinct ids would merge";

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

/** Any record's `id`: over-length fails the page instead of being truncated; so does one UTF-8 cannot hold exactly. */
export const recordId = v.pipe(
  v.string(ID_RULE),
  v.check((id) => id.length > 0 && codePointLength(id) <= TEXT_LIMITS.id, ID_RULE),
  v.check(isWellFormedText, ID_TEXT_RULE),
);
