import type * as v from "valibot";
import { PageValidationError } from "../../../lambdas/domain/core/errors";
import { parseRecord } from "../../../lambdas/domain/records/parse-record";

/** The PageValidationError that parsing `raw` throws; fails the test when it parses. */
export function rejection(schema: v.GenericSchema, raw: unknown, index = 0): PageValidationError {
  try {
    parseRecord(schema, raw, index);
  } catch (error) {
    if (error instanceof PageValidationError) return error;
    throw error;
  }
  throw new Error("expected the record to fail validation, but it parsed");
}

/** True when the text holds half of a surrogate pair. */
export function hasLoneSurrogate(text: string): boolean {
  return /\p{Cs}/u.test(text);
}
