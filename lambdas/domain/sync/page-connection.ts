import { ConnectionNotFoundError } from "../core/errors";
import type { StoredConnection } from "../core/connection";
import type { SyncDeps } from "./sync-deps";
import type { ExecutionRun } from "./sync-state";

/**
 * The page task's read of its connection: eventually consistent (half the
 * cost of a strong read, and any replica may serve it), because it runs on
 * every page of every run and every connection item shares one partition key
 * (docs/hot-keys.md). A stale answer is harmless except where it could stop a
 * live run, so exactly there a strong read decides (docs/fleet-scale.md):
 * - no item: confirmed strongly before the run stops (a replica may not have
 *   seen a connection created or rewritten moments ago);
 * - a 401: see rotatedConnection.
 */
export async function readPageConnection(deps: Pick<SyncDeps, "connections">, run: ExecutionRun): Promise<StoredConnection> {
  const connection = await deps.connections.get(run.business_account_id, run.connection_id, { consistency: "eventual" });
  return connection ?? confirmConnection(deps, run);
}

/** An eventually consistent read found no connection: a strong read says whether it is really gone. */
export async function confirmConnection(deps: Pick<SyncDeps, "connections">, run: ExecutionRun): Promise<StoredConnection> {
  const connection = await deps.connections.get(run.business_account_id, run.connection_id);
  if (connection === null) throw new ConnectionNotFoundError(`connection ${run.connection_id} no longer exists`);
  return connection;
}

/**
 * The source said 401 to the token from a possibly stale read: the connection
 * as a strong read sees it when its token was rotated since (the page is worth
 * one more request with it), or undefined when the token is the same (a real
 * 401: the run stops). A connection deleted meanwhile throws ConnectionNotFoundError.
 */
export async function rotatedConnection(
  deps: Pick<SyncDeps, "connections">,
  run: ExecutionRun,
  used: StoredConnection,
): Promise<StoredConnection | undefined> {
  const current = await confirmConnection(deps, run);
  return current.token_ciphertext === used.token_ciphertext ? undefined : current;
}
