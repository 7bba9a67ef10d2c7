import * as v from "valibot";
import { STAGE_KINDS } from "../core/entities";
import { TEXT_LIMITS } from "../core/limits";
import { integerOrZero } from "./fields/integer";
import { recordObject } from "./fields/object";
import { recordId, truncatedText } from "./fields/text";

const KIND_RULE = `must be one of ${STAGE_KINDS.join(", ")} (case-insensitive)`;

/** Never defaults to open: an unknown kind would misclassify every lead in the stage. */
const kind = v.pipe(v.string(KIND_RULE), v.transform((text) => text.toLowerCase()), v.picklist(STAGE_KINDS, KIND_RULE));

/** A stage nested in a pipeline's `stages[]`; its `type` key and timestamps are ignored. */
export const StageSchema = v.pipe(
  recordObject({
    id: recordId,
    name: truncatedText(TEXT_LIMITS.name),
    kind,
    sort: integerOrZero,
    color: truncatedText(TEXT_LIMITS.stageColor),
  }),
  v.transform((s) => ({ id: s.id, name: s.name, kind: s.kind, sort: s.sort, color: s.color })),
);

export type StageInput = v.InferInput<typeof StageSchema>;
export type StageOutput = v.InferOutput<typeof StageSchema>;
