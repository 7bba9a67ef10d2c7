import type { SyncEntity } from "../core/entities";
import { PageValidationError } from "../core/errors";
import { RECORD_RULES, recordFields } from "../source-contract/rules/record-rules";
import { isPlainObject } from "../records/fields/object";
import { parseRecord } from "../records/parse-record";
import type * as v from "valibot";

/**
 * The kit's rule a record the sync refuses broke: the first of the kit's
 * record rules whose check names it (the kit and the sync run the same
 * checks), so a failed entity row and the kit's report agree.
 */
export function ruleOfRefusedRecord(entity: SyncEntity, raw: unknown, invalid: PageValidationError): string {
  const observation = { entity, raw: isPlainObject(raw) ? raw : {}, recordId: invalid.recordId, invalid, output: null };
  return RECORD_RULES.find((rule) => rule.check(observation) !== null)?.id ?? recordFields.id;
}

/** parseRecord of one record of `entity`: a refused record's PageValidationError names its rule's catalog id. */
export function parseSourceRecord<TSchema extends v.GenericSchema>(entity: SyncEntity, schema: TSchema, raw: unknown, index: number): v.InferOutput<TSchema> {
  try {
    return parseRecord(schema, raw, index);
  } catch (error) {
    if (!(error instanceof PageValidationError) || error.ruleId !== null) throw error;
    throw new PageValidationError(error.recordId, error.field, error.rule, {
      ruleId: ruleOfRefusedRecord(entity, raw, error),
      idUsable: error.record?.id !== null,
    });
  }
}
