import type { StageKinds } from "../../core/ports/record-store";
import { classifyLead } from "../won-lost";
import { rule } from "../rule";

/** A lead's stage resolves (through the sync's own classifier) to a stage of its pipeline. */
export const referenceStage = rule<{ readonly leadId: string; readonly pipelineId: string | null; readonly stageId: string | null; readonly stageKinds: StageKinds }>({
  id: "reference.stage",
  severity: "warning",
  spec: "States and transitions > Lead won/lost derivation",
  fix: "Send the pipeline_id and stage_id of a stage that /pipelines lists.",
  check: ({ leadId, pipelineId, stageId, stageKinds }) =>
    stageId === null || classifyLead({ pipeline_id: pipelineId, stage_id: stageId }, stageKinds).resolved
      ? null
      : `lead ${leadId}: stage ${stageId} of pipeline ${pipelineId} is not among the stages /pipelines returns: the lead counts as neither won nor lost; send pipeline_id and stage_id of a listed stage`,
});

/** responsible_user_id names a user /users returns. */
export const referenceUser = rule<{ readonly recordId: string; readonly userId: unknown; readonly userIds: ReadonlySet<string> }>({
  id: "reference.user",
  severity: "warning",
  spec: "Resources > Contact, Lead, Task, Call (responsible_user_id)",
  fix: "List every responsible user in /users.",
  check: ({ recordId, userId, userIds }) =>
    typeof userId !== "string" || userId === "" || userIds.has(userId)
      ? null
      : `record ${recordId}: responsible_user_id ${userId} is not a user /users returns: the record is attributed to nobody; list every responsible user in /users`,
});
