import type { StageTransition } from "../lead-history";

/** The leads' stage history the page transactions keep (lambdas/adapters/dynamodb/records/page-history.ts). */
export interface HistoryStore {
  /** One lead's transitions, its entry into its first stage included, in no set order; none for a lead never stored. */
  leadTransitions(connectionId: string, leadId: string): Promise<StageTransition[]>;
  /** Every transition of the connection's leads (entries included), in no set order. */
  allTransitions(connectionId: string): Promise<StageTransition[]>;
}
