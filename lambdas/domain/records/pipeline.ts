import * as v from "valibot";
import { TEXT_LIMITS } from "../core/limits";
import { booleanOr } from "./fields/boolean";
import { integerOrZero } from "./fields/integer";
import { recordObject } from "./fields/object";
import { recordId, truncatedText } from "./fields/text";
import { StageSchema } from "./stage";

const STAGES_RULE = "must be an array of stages (missing or null is not allowed)";

/** A pipeline with its stages; archived pipelines are still ingested, timestamps are not read. */
export const PipelineSchema = v.pipe(
  recordObject({
    id: recordId,
    name: truncatedText(TEXT_LIMITS.name),
    is_archived: booleanOr(false),
    sort: integerOrZero,
    stages: v.array(StageSchema, STAGES_RULE),
  }),
  v.transform((p) => ({ id: p.id, name: p.name, is_archived: p.is_archived, sort: p.sort, stages: p.stages })),
);

export type PipelineInput = v.InferInput<typeof PipelineSchema>;
export type PipelineOutput = v.InferOutput<typeof PipelineSchema>;
