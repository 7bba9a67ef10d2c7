import { SourceAuthError } from "../core/errors";
import type { StoredConnection } from "../core/connection";
import type { SourcePage, SourcePageRequest } from "../core/ports/source-client";
import { FetchAheadCancelledError } from "./fetch-ahead";
import { readPageConnection, rotatedConnection } from "./page-connection";
import { rateLimited } from "./rate-limited-source-client";
import type { SyncDeps } from "./sync-deps";
import type { ExecutionRun } from "./sync-state";

/**
 * One request of a page, as every request of a sync is made: the connection is
 * read right before it (a deleted connection stops the run before its request;
 * a rotated token is used from this request on) while its rate-limit slot is
 * taken at `rateLimit`, the rate the previous read saw (none: the read's own).
 * A 401 to a token from the eventually consistent read is checked with a strong
 * one: rotated since, the request is made once more with the new token and its
 * own slot; else the 401 stands.
 *
 * `cancelled` is asked right before each request leaves (after its slot): an
 * early request whose page N failed meanwhile, or whose segment has passed its
 * last page start, is never sent.
 */
export async function requestPage(
  deps: SyncDeps,
  run: ExecutionRun,
  rateLimit: number | undefined,
  request: SourcePageRequest,
  cancelled: () => boolean = () => false,
  /** Told each connection the request is made with, as it is read (an early request's failure hands it on). */
  read: (connection: StoredConnection) => void = () => undefined,
): Promise<{ page: SourcePage; connection: StoredConnection }> {
  const slot = rateLimit === undefined ? undefined : deps.limiter.acquire(run.connection_id, rateLimit);
  slot?.catch(() => undefined);
  let connection = await readPageConnection(deps, run);
  read(connection);
  const guarded = {
    fetchPage: (...args: Parameters<SyncDeps["source"]["fetchPage"]>) => {
      if (cancelled()) throw new FetchAheadCancelledError("the early request was not sent: the page before it failed, or its segment starts no more pages");
      return deps.source.fetchPage(...args);
    },
  };
  const source = rateLimited(guarded, deps.limiter, { connectionId: run.connection_id, rateLimit: rateLimit ?? connection.rate_limit }, undefined, slot);
  const tokenOf = (stored: StoredConnection) =>
    deps.cipher.decrypt(stored.token_ciphertext, { businessAccountId: run.business_account_id, connectionId: run.connection_id });
  try {
    return { page: await source.fetchPage({ baseUrl: connection.base_url, token: await tokenOf(connection) }, request), connection };
  } catch (error) {
    const rotated = error instanceof SourceAuthError ? await rotatedConnection(deps, run, connection) : undefined;
    if (rotated === undefined) throw error;
    connection = rotated;
    read(connection);
    return { page: await source.fetchPage({ baseUrl: connection.base_url, token: await tokenOf(connection) }, request), connection };
  }
}
