import * as v from "valibot";
import { TEXT_LIMITS } from "../core/limits";
import { customFieldsMap } from "./fields/custom-fields";
import { recordObject } from "./fields/object";
import { nullableText, recordId, truncatedText } from "./fields/text";
import { timestamp } from "./fields/timestamp";

/** A contact; is_deleted and unknown keys are dropped (contacts have no deletion signal). */
export const ContactSchema = v.pipe(
  recordObject({
    id: recordId,
    name: truncatedText(TEXT_LIMITS.name),
    phone: truncatedText(TEXT_LIMITS.contactPhone),
    email: truncatedText(TEXT_LIMITS.email),
    responsible_user_id: nullableText,
    custom_fields: customFieldsMap,
    created_at: timestamp,
    updated_at: timestamp,
  }),
  v.transform((c) => ({
    id: c.id,
    name: c.name,
    phone: c.phone,
    email: c.email,
    responsible_user_id: c.responsible_user_id,
    custom_fields: c.custom_fields,
    created_at: c.created_at,
    updated_at: c.updated_at,
  })),
);

export type ContactInput = v.InferInput<typeof ContactSchema>;
export type ContactOutput = v.InferOutput<typeof ContactSchema>;
