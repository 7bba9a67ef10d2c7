import { randomUUID } from "node:crypto";
import type { StoredConnection } from "../../lambdas/domain/core/connection";
import type { TokenCipher } from "../../lambdas/domain/core/ports/token-cipher";

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

/**
 * A new connection (a fresh id, created now, rate_limit 1000) with `token`
 * encrypted under its own context, as the API would store it; override what a
 * test is about (id and business_account_id feed the encryption context).
 */
export async function encryptedConnection(cipher: TokenCipher, token: string, overrides: Partial<StoredConnection> = {}): Promise<StoredConnection> {
  const now = new Date().toISOString();
  const fresh = storedConnection(`conn-${randomUUID()}`, { rate_limit: 1000, created_at: now, updated_at: now, ...overrides });
  const context = { businessAccountId: fresh.business_account_id, connectionId: fresh.id };
  return { ...fresh, token_ciphertext: await cipher.encrypt(token, context) };
}
