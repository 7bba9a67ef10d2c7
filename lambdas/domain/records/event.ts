import * as v from "valibot";
import { TEXT_LIMITS } from "../core/limits";
import { wrapValue } from "./fields/json-value";
import { recordObject } from "./fields/object";
import { truncateText } from "../core/characters";
import { recordId, TEXT_RULE } from "./fields/text";
import { parseTimestamp } from "./fields/timestamp";

const LEAD_ID_RULE = "is required: a non-empty string";

/**
 * The entries only validate (no defaults, no transforms), so the object that
 * comes out is still the event as received: `raw` is copied from it.
 */
const eventFields = recordObject({
  id: recordId,
  lead_id: v.pipe(v.string(LEAD_ID_RULE), v.minLength(1, LEAD_ID_RULE)),
  type: v.nullish(v.string(TEXT_RULE)),
});

/** A lead-history event; updated_at is output for the watermark only and is not stored. */
export const EventSchema = v.pipe(
  eventFields,
  v.transform(({ created_by: _dropped, ...raw }) => ({
    id: raw.id,
    lead_id: truncateText(raw.lead_id, TEXT_LIMITS.reference),
    type: truncateText(raw.type ?? "", TEXT_LIMITS.eventType),
    value_before: wrapValue(raw["value_before"]),
    value_after: wrapValue(raw["value_after"]),
    created_at: parseTimestamp(raw["created_at"]),
    updated_at: parseTimestamp(raw["updated_at"]),
    raw,
  })),
);

export type EventInput = v.InferInput<typeof EventSchema>;
export type EventOutput = v.InferOutput<typeof EventSchema>;
