import type { StageKinds } from "../core/ports/record-store";

export interface WonLost {
  readonly is_won: boolean;
  readonly is_lost: boolean;
  /** False when the lead's pipeline or stage is unknown, or its pipeline has no stages. */
  readonly resolved: boolean;
}

/** Won or lost comes from the kind of the lead's (pipeline, stage) only; the source's is_won/is_lost are ignored. */
export function classifyLead(
  lead: { readonly pipeline_id: string | null; readonly stage_id: string | null },
  stageKinds: StageKinds,
): WonLost {
  const stages = lead.pipeline_id === null ? undefined : stageKinds.get(lead.pipeline_id);
  const kind = lead.stage_id === null ? undefined : stages?.get(lead.stage_id);
  if (kind === undefined) return { is_won: false, is_lost: false, resolved: false };
  return { is_won: kind === "won", is_lost: kind === "lost", resolved: true };
}
