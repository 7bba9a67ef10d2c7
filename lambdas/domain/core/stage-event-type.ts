import * as v from "valibot";
import { codePointLength, isWellFormedText } from "./characters";
import { TEXT_LIMITS } from "./limits";
import { CONTROL_CHARACTERS, NON_CONTROL_WHITESPACE, portableRegExp } from "./portable-patterns";

/*
 * The connection's setting naming the /events `type` that records stage moves
 * (docs/history-feed-webhooks.md, "Stage history"). Set: only events of
 * exactly that type give reported transitions, compared code point for code
 * point, case included (a source may use "Stage" and "stage" for two kinds);
 * unset: the default detection (a type containing "stage", any case).
 */

/** The longest type the setting can name: an event's `type` is kept to this many characters, so a longer one never matches. */
export const MAX_STAGE_EVENT_TYPE_LENGTH = TEXT_LIMITS.eventType;

export const STAGE_EVENT_TYPE_RULES = {
  empty: "must not be empty: send null to go back to the default detection (a type containing \"stage\")",
  control: "must not contain control characters (a newline, a tab)",
  edges: "must not begin or end with white space: it is compared exactly with each event's type",
  unicode: "must be valid Unicode text: it holds an unpaired surrogate escape (\\uD800 to \\uDFFF)",
  length: `must be at most ${MAX_STAGE_EVENT_TYPE_LENGTH} characters, the longest event type the service keeps`,
} as const;

const NO_CONTROL = portableRegExp(`^[^${CONTROL_CHARACTERS}]*$`);
const NO_EDGE_SPACE = portableRegExp(`^[^${NON_CONTROL_WHITESPACE}]([^${CONTROL_CHARACTERS}]*[^${NON_CONTROL_WHITESPACE}])?$`);

/** The setting as the owner sends it (POST and PATCH; PATCH null clears it). Characters are Unicode code points, so at most 400 UTF-8 bytes. */
export const StageEventTypeSchema = v.pipe(
  v.string("must be a string or null"),
  v.minLength(1, STAGE_EVENT_TYPE_RULES.empty),
  v.regex(NO_CONTROL, STAGE_EVENT_TYPE_RULES.control),
  v.regex(NO_EDGE_SPACE, STAGE_EVENT_TYPE_RULES.edges),
  v.check(isWellFormedText, STAGE_EVENT_TYPE_RULES.unicode),
  v.check((text) => codePointLength(text) <= MAX_STAGE_EVENT_TYPE_LENGTH, STAGE_EVENT_TYPE_RULES.length),
);

/** The default detection's rule, used while the setting is unset. */
export const DEFAULT_STAGE_EVENT_TYPE_PATTERN = /stage/i;

/** Whether an event of `type` records a stage move under the connection's setting (null: unset). */
export function isStageEventType(type: unknown, setting: string | null): boolean {
  if (typeof type !== "string") return false;
  return setting === null ? DEFAULT_STAGE_EVENT_TYPE_PATTERN.test(type) : type === setting;
}
