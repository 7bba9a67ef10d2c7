import * as v from "valibot";
import { TEXT_LIMITS } from "../core/limits";
import { associate } from "./fields/association";
import { integerOrZero } from "./fields/integer";
import { recordObject } from "./fields/object";
import { nullableText, recordId, referenceText, truncatedText } from "./fields/text";
import { timestamp } from "./fields/timestamp";

const ASSOCIATION_RULE = "is required: a call needs lead_id or contact_id";

/** Read but not kept: neither a field nor part of the raw copy. */
const IGNORED_KEYS = ["call_status", "result", "recording_link", "source", "created_by"];

/** Anything but exactly `in` is stored as `out`. */
const direction = v.pipe(
  v.optional(v.unknown(), null),
  v.transform((value): "in" | "out" => (value === "in" ? "in" : "out")),
);

const callFields = {
  id: recordId,
  lead_id: referenceText,
  contact_id: referenceText,
  responsible_user_id: nullableText,
  direction,
  duration_seconds: integerOrZero,
  phone: truncatedText(TEXT_LIMITS.callPhone),
  created_at: timestamp,
  updated_at: timestamp,
};

const notRaw = new Set([...Object.keys(callFields), ...IGNORED_KEYS]);

/** The source keys the call table does not know, kept as received. */
function rawCopy(call: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(call).filter(([key]) => !notRaw.has(key)));
}

/** A call; unlike a task it must link to a lead or a contact. */
export const CallSchema = v.pipe(
  recordObject(callFields),
  v.forward(
    v.check((call) => Boolean(call.lead_id || call.contact_id), ASSOCIATION_RULE),
    ["lead_id"],
  ),
  v.transform((c) => ({
    id: c.id,
    ...associate(c.lead_id, c.contact_id),
    responsible_user_id: c.responsible_user_id,
    direction: c.direction,
    duration_seconds: c.duration_seconds,
    phone: c.phone,
    created_at: c.created_at,
    updated_at: c.updated_at,
    raw: rawCopy(c),
  })),
);

export type CallInput = v.InferInput<typeof CallSchema>;
export type CallOutput = v.InferOutput<typeof CallSchema>;
