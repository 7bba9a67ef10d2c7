import * as v from "valibot";
import { isPlainObject } from "./object";

export interface CustomFieldPair {
  readonly name: string;
  readonly value: unknown;
}

/** The object when it has at least one key; anything else is null, never an error. */
function nonEmptyObject(value: unknown): Record<string, unknown> | null {
  return isPlainObject(value) && Object.keys(value).length > 0 ? { ...value } : null;
}

/** Contacts: the flat map kept as an object, values with their JSON type. */
export const customFieldsMap = v.pipe(v.optional(v.unknown(), null), v.transform(nonEmptyObject));

/** Leads: the flat map stored as name/value pairs in key order. */
export const customFieldsPairs = v.pipe(
  v.optional(v.unknown(), null),
  v.transform((value): CustomFieldPair[] | null => {
    const fields = nonEmptyObject(value);
    return fields && Object.entries(fields).map(([name, fieldValue]) => ({ name, value: fieldValue }));
  }),
);
