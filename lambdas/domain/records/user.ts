import * as v from "valibot";
import { TEXT_LIMITS } from "../core/limits";
import { BOOLEAN_RULE } from "./fields/boolean";
import { recordObject } from "./fields/object";
import { recordId, truncatedText } from "./fields/text";

/** Omitted means active; an explicit null means inactive; never stored as null. */
const isActive = v.optional(v.nullable(v.boolean(BOOLEAN_RULE), false), true);

/** A user (manager); phone, timestamps and unknown keys are dropped. */
export const UserSchema = v.pipe(
  recordObject({
    id: recordId,
    name: truncatedText(TEXT_LIMITS.name),
    email: truncatedText(TEXT_LIMITS.email),
    role: truncatedText(TEXT_LIMITS.userRole),
    is_active: isActive,
  }),
  v.transform((u) => ({ id: u.id, name: u.name, email: u.email, role: u.role, is_active: u.is_active })),
);

export type UserInput = v.InferInput<typeof UserSchema>;
export type UserOutput = v.InferOutput<typeof UserSchema>;
