import type { StoredConnection } from "../../lambdas/domain/core/connection";
import type { StartSyncDeps } from "../../lambdas/domain/sync/sync-deps";
import { DISPATCH_PAGE_SIZE, planDispatchPage } from "../../lambdas/domain/sync/dispatch-tick";

/**
 * What one schedule tick reads from DynamoDB: the real ListConnections
 * (planDispatchPage, every page of the tick) run over an in-memory fleet of n
 * connections whose stores count what DynamoDB would be asked, priced as
 * DynamoDB bills reads ("Read/write capacity mode", DynamoDB developer guide):
 * a Query bills the size of the items it read, rounded up to 4 KB once per call
 * (strongly consistent: 1 RRU per 4 KB; an empty one still 1); a BatchGetItem
 * bills each key as a GetItem (eventually consistent, under 4 KB: 0.5 RRU,
 * held or not). No DynamoDB here: test/sync/dispatch-tick.test.ts checks the
 * same counts on DynamoDB Local.
 */

/** A connection item as the tick's Query reads it: its fields and the KMS ciphertext of its token, at most 1 KB (an assumption; the test measures the local ones). */
export const CONNECTION_ITEM_BYTES = 1024;
/** DynamoDB's read unit and the keys of one BatchGetItem. */
const READ_UNIT_BYTES = 4 * 1024;
const BATCH_GET_MAX_KEYS = 100;
/** A run lock read by BatchGetItem, eventually consistent, under 4 KB. */
export const TICK_LOCK_READ_RRU = 0.5;

export interface TickReads {
  readonly connections: number;
  /** ListConnections pages (a page that fills its limit has a next one, maybe empty, as DynamoDB's LastEvaluatedKey says). */
  readonly pages: number;
  /** Queries of the connection partition, and the items they returned. */
  readonly queries: number;
  readonly listedItems: number;
  /** Run locks read, and the BatchGetItem calls that read them (100 keys each). */
  readonly lockReads: number;
  readonly batchGets: number;
  /** Every DynamoDB call of the tick's ListConnections, over the tick. */
  readonly calls: number;
  readonly rru: number;
  readonly rruPerConnection: number;
}

/** Counts, over one tick, what the tick's ListConnections would ask DynamoDB. */
export function tickReadCounter(itemBytes = CONNECTION_ITEM_BYTES) {
  let queries = 0;
  let listedItems = 0;
  let queryRru = 0;
  let lockReads = 0;
  let batchGets = 0;
  return {
    /** One Query of the connection partition that returned `items` items (strongly consistent). */
    query(items: number): void {
      queries += 1;
      listedItems += items;
      queryRru += Math.max(1, Math.ceil((items * itemBytes) / READ_UNIT_BYTES));
    },
    /** One heldLocks call for these keys (already distinct). */
    locks(keys: number): void {
      lockReads += keys;
      batchGets += Math.ceil(keys / BATCH_GET_MAX_KEYS);
    },
    totals(connections: number, pages: number): TickReads {
      const rru = queryRru + lockReads * TICK_LOCK_READ_RRU;
      return { connections, pages, queries, listedItems, lockReads, batchGets, calls: queries + batchGets, rru, rruPerConnection: rru / connections };
    },
  };
}

/** One tick over `connections` connections, none paused and none running, in pages of `pageSize`. */
export async function tickReads(connections: number, pageSize: number = DISPATCH_PAGE_SIZE, itemBytes = CONNECTION_ITEM_BYTES): Promise<TickReads> {
  const counter = tickReadCounter(itemBytes);
  const fleet: StoredConnection[] = Array.from({ length: connections }, (_, index) => ({
    id: `conn-${String(index).padStart(6, "0")}`,
    business_account_id: `acct-${index % 10}`,
    crm_type: "custom",
    base_url: "https://crm.example.com/api",
    rate_limit: 5,
    sync_since: "2026-01-01T00:00:00.000Z",
    created_at: "2026-01-01T00:00:00.000Z",
    updated_at: "2026-01-01T00:00:00.000Z",
    token_ciphertext: "c",
  }));
  const quiet = () => {};
  const deps = {
    connections: {
      // As DynamoDB's Query: a page that reached its Limit returns a LastEvaluatedKey, even when nothing follows.
      async listAllPage({ limit, cursor }: { readonly limit: number; readonly cursor: string | null }) {
        const start = cursor === null ? 0 : Number(cursor);
        const page = fleet.slice(start, start + limit);
        counter.query(page.length);
        return { connections: page, cursor: page.length === limit ? String(start + limit) : null };
      },
    },
    runs: {
      async heldLocks(ids: readonly string[]) {
        counter.locks(new Set(ids).size);
        return { locks: [], damaged: 0 };
      },
    },
    clock: { now: () => new Date("2026-06-01T00:00:00.000Z") },
    logger: { debug: quiet, info: quiet, warn: quiet, error: quiet },
  } as unknown as Pick<StartSyncDeps, "connections" | "runs" | "clock" | "logger" | "staleCheck">;
  let pages = 0;
  let cursor: string | null = null;
  do {
    const page: Awaited<ReturnType<typeof planDispatchPage>> = await planDispatchPage(deps, cursor, { maxRuns: 200, maxChildren: 20 }, () => 0.5, pageSize, 10);
    pages += 1;
    cursor = page.cursor;
  } while (cursor !== null);
  return counter.totals(connections, pages);
}
