import type { SourcePipeline, SourceStage } from "./records";

/** A pipeline's stages of one kind (open, won, lost), in the pipeline's order. */
export function stagesOfKind(pipeline: SourcePipeline, kind: SourceStage["kind"]): SourceStage[] {
  return pipeline.stages.filter((stage) => stage.kind === kind);
}
