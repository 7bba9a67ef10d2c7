import { inHistoryOrder, preferReported, type LeadHistory } from "../core/lead-history";
import { API_BASE_PATH } from "../core/api-paths";
import { findConnection } from "./connection-operations";
import type { OnboardingDeps } from "./onboarding-deps";
import { NotFoundError } from "./onboarding-errors";

/**
 * GET .../records/leads/{leadId}/history: the lead's stage transitions in time
 * order, each marked observed (a sync saw the stage change) or reported (a
 * stage event of the source's /events). A lead never stored has none (200,
 * like the record route's nulls); an id over the key limit is a 404.
 */
export async function getLeadHistory(deps: Pick<OnboardingDeps, "connections" | "keySpace" | "history">, account: string, id: string, leadId: string): Promise<LeadHistory> {
  await findConnection(deps, account, id);
  if (!deps.keySpace.isStorableId(leadId)) throw new NotFoundError("no such lead: ids are at most 1024 UTF-8 bytes");
  return { lead_id: leadId, data: inHistoryOrder(preferReported(await deps.history.leadTransitions(id, leadId))) };
}

/** Where a lead's history is read (explain links to it). */
export function leadHistoryPath(connectionId: string, leadId: string): string {
  return `${API_BASE_PATH}/crm/custom/connections/${encodeURIComponent(connectionId)}/records/leads/${encodeURIComponent(leadId)}/history`;
}
