import type { Connection, StoredConnection } from "../core/ports";

/** The Connection as the API returns it: every field but the token, plus the schedule as the owner sees it. */
export interface ConnectionResource extends Connection {
  /** True while the owner has paused the schedule; a manual sync still runs. */
  readonly paused: boolean;
  /**
   * The scheduled dispatcher's interval as configured (`1h`, `15m`, `off`), or
   * null when this deployment did not tell the API. The next run is within one
   * interval: neither EventBridge nor the local timer exposes the exact time.
   */
  readonly schedule: string | null;
}

export function toConnectionResource(stored: StoredConnection, schedule?: string): ConnectionResource {
  return {
    id: stored.id,
    business_account_id: stored.business_account_id,
    crm_type: stored.crm_type,
    base_url: stored.base_url,
    rate_limit: stored.rate_limit,
    sync_since: stored.sync_since,
    created_at: stored.created_at,
    updated_at: stored.updated_at,
    paused: stored.paused === true,
    schedule: schedule ?? null,
  };
}
