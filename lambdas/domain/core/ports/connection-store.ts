import type { StoredConnection } from "../connection";

/** "strong": sees every write acknowledged before the read. "eventual": may not yet see a recent write, for a short time. */
export type ReadConsistency = "strong" | "eventual";

/** Connections: owned by the onboarding API, read by the sync. Stored with the token's ciphertext, never the token. */
export interface ConnectionStore {
  /** Creates or replaces. */
  put(connection: StoredConnection): Promise<void>;
  /**
   * Tenant-scoped: another workspace's id is null, exactly like an unknown id.
   * Strongly consistent unless the caller asks for "eventual" (half the cost, but it may miss a recent write:
   * only the page task does, with its own fallbacks, lambdas/domain/sync/page-connection.ts).
   */
  get(businessAccountId: string, connectionId: string, options?: { readonly consistency?: ReadConsistency }): Promise<StoredConnection | null>;
  listByAccount(businessAccountId: string): Promise<StoredConnection[]>;
  /** Every connection of every workspace: the scheduled dispatcher's list. */
  listAll(): Promise<StoredConnection[]>;
  /** listAll one page at a time (the schedule tick's Map takes a page per step); `cursor` is opaque, null on the last page. */
  listAllPage(options: { readonly limit: number; readonly cursor: string | null }): Promise<{ readonly connections: StoredConnection[]; readonly cursor: string | null }>;
  delete(businessAccountId: string, connectionId: string): Promise<void>;
}
