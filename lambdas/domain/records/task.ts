import * as v from "valibot";
import { associate } from "./fields/association";
import { booleanOr } from "./fields/boolean";
import { recordObject } from "./fields/object";
import { nullableText, recordId, referenceText } from "./fields/text";
import { timestamp } from "./fields/timestamp";

/** A task; one linked to nothing is still accepted. Text is never truncated. */
export const TaskSchema = v.pipe(
  recordObject({
    id: recordId,
    lead_id: referenceText,
    contact_id: referenceText,
    responsible_user_id: nullableText,
    text: nullableText,
    is_completed: booleanOr(false),
    due_at: timestamp,
    completed_at: timestamp,
    updated_at: timestamp,
  }),
  v.transform((t) => ({
    id: t.id,
    ...associate(t.lead_id, t.contact_id),
    responsible_user_id: t.responsible_user_id,
    text: t.text,
    is_completed: t.is_completed,
    due_at: t.due_at,
    completed_at: t.completed_at,
    updated_at: t.updated_at,
  })),
);

export type TaskInput = v.InferInput<typeof TaskSchema>;
export type TaskOutput = v.InferOutput<typeof TaskSchema>;
