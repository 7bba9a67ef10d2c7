import type { StoredConnection } from "../../lambdas/core/connection";

/** A stored connection as the connection store keeps it, with a stand-in ciphertext; override what a test is about. */
export function storedConnection(id: string, overrides: Partial<StoredConnection> = {}): StoredConnection {
  return {
    id,
    business_account_id: "acct-builder",
    crm_type: "custom",
    base_url: "https://crm.example.test",
    rate_limit: 5,
    sync_since: "2026-01-01T00:00:00.000Z",
    created_at: "2026-11-01T00:00:00.000Z",
    updated_at: "2026-11-01T00:00:00.000Z",
    token_ciphertext: "ciphertext",
    ...overrides,
  };
}
