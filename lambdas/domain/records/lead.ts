import * as v from "valibot";
import { TEXT_LIMITS } from "../core/limits";
import { booleanOr } from "./fields/boolean";
import { customFieldsPairs } from "./fields/custom-fields";
import { recordObject } from "./fields/object";
import { price } from "./fields/price";
import { nullableText, recordId, truncatedText } from "./fields/text";
import { timestamp } from "./fields/timestamp";
import { utm } from "./fields/utm";

const CONTACT_IDS_RULE = "must be an array of strings or null";
const CONTACT_ID_RULE = "must be a string";

/** Only the first contact is kept; the rest of the array is not even read. */
const contactIds = v.pipe(
  v.nullish(v.looseTuple([v.optional(v.string(CONTACT_ID_RULE))], CONTACT_IDS_RULE), null),
  v.transform((ids) => ids?.[0] || null),
);

/** Identical text maps to one derived loss-reason record, so blank text is no reason at all. */
const lossReason = v.pipe(
  truncatedText(TEXT_LIMITS.lossReason),
  v.transform((text) => (text === null || text.trim() === "" ? null : text)),
);

/** A lead; currency, is_won, is_lost and unknown keys are dropped (won/lost derives from the stage). */
export const LeadSchema = v.pipe(
  recordObject({
    id: recordId,
    name: truncatedText(TEXT_LIMITS.name),
    price,
    pipeline_id: nullableText,
    stage_id: nullableText,
    responsible_user_id: nullableText,
    contact_ids: contactIds,
    loss_reason: lossReason,
    source: truncatedText(TEXT_LIMITS.leadSource),
    utm,
    custom_fields: customFieldsPairs,
    created_at: timestamp,
    updated_at: timestamp,
    closed_at: timestamp,
    is_deleted: booleanOr(false),
  }),
  v.transform((l) => ({
    id: l.id,
    name: l.name,
    price: l.price,
    pipeline_id: l.pipeline_id,
    stage_id: l.stage_id,
    responsible_user_id: l.responsible_user_id,
    contact_id: l.contact_ids,
    loss_reason: l.loss_reason,
    source: l.source,
    utm: l.utm,
    custom_fields: l.custom_fields,
    created_at: l.created_at,
    updated_at: l.updated_at,
    closed_at: l.closed_at,
    is_deleted: l.is_deleted,
  })),
);

export type LeadInput = v.InferInput<typeof LeadSchema>;
export type LeadOutput = v.InferOutput<typeof LeadSchema>;
