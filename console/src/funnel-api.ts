/** GET .../analytics/funnel as the console reads it (the API's FunnelSchema is the source of truth). */
export interface FunnelStage {
  readonly id: string;
  readonly name: string | null;
  readonly kind: string;
  /** Leads in it now. */
  readonly leads: number;
  /** Leads that reached it (from current stages: in it, or in a later open or won stage). */
  readonly reached: number;
  readonly to_next: number | null;
  readonly to_won: number | null;
}

export interface PipelineFunnel {
  readonly id: string;
  readonly name: string | null;
  readonly stages: readonly FunnelStage[];
  readonly won: number;
  readonly lost: number;
  /** A JSON integer, or beyond 2^53 its exact digits as a string. */
  readonly revenue_won: number | string;
  readonly top_loss_reasons: readonly { readonly reason: string; readonly leads: number }[];
  readonly unresolved_won_lost: number;
  readonly overdue_tasks: number;
  readonly connected_calls: number;
}

export interface Funnel {
  readonly computed_at: string;
  readonly run_id: string | null;
  readonly reached_from: string;
  readonly pipelines: readonly PipelineFunnel[];
  readonly leads_without_pipeline: number;
}

/** A whole amount with thousands separators, exact at any size (a string beyond 2^53 is never rounded through a double). */
export function amount(value: number | string): string {
  return BigInt(value).toLocaleString("en-US");
}

/** "67%", "—" when nothing reached the stage. */
export function percent(share: number | null): string {
  return share === null ? "—" : `${Math.round(share * 100)}%`;
}
