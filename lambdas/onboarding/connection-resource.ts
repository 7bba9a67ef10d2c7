import type { Connection, StoredConnection } from "../core/ports";

/** The Connection as the API returns it: every field but the token, which never leaves the store. */
export function toConnectionResource(stored: StoredConnection): Connection {
  return {
    id: stored.id,
    business_account_id: stored.business_account_id,
    crm_type: stored.crm_type,
    base_url: stored.base_url,
    rate_limit: stored.rate_limit,
    sync_since: stored.sync_since,
    created_at: stored.created_at,
    updated_at: stored.updated_at,
  };
}
