import * as v from "valibot";
import { TEXT_LIMITS } from "../../core/limits";
import { plainObject } from "./object";
import { truncatedText } from "./text";

const utmFields = plainObject(
  {
    source: truncatedText(TEXT_LIMITS.utmShort),
    medium: truncatedText(TEXT_LIMITS.utmShort),
    campaign: truncatedText(TEXT_LIMITS.utmLong),
    content: truncatedText(TEXT_LIMITS.utmLong),
    term: truncatedText(TEXT_LIMITS.utmLong),
  },
  "must be an object or null",
);

/** Lead utm: the five sub-fields, each truncated; other keys dropped. */
export const utm = v.pipe(
  v.nullish(utmFields, null),
  v.transform(
    (u) => u && { source: u.source, medium: u.medium, campaign: u.campaign, content: u.content, term: u.term },
  ),
);
