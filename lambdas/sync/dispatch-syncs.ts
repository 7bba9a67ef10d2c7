import * as v from "valibot";
import { claimRun, startSync } from "./start-sync";
import type { StartSyncDeps } from "./sync-deps";

/**
 * Connections per ListConnections page: ids only (~100 bytes an item), so a
 * page stays far below Step Functions' 256 KB state limit.
 */
export const DISPATCH_PAGE_SIZE = 1000;

/** One connection to run, as the schedule tick's Map carries it. */
export const DispatchItemSchema = v.object({
  business_account_id: v.pipe(v.string(), v.minLength(1)),
  connection_id: v.pipe(v.string(), v.minLength(1)),
});
export type DispatchItem = v.InferOutput<typeof DispatchItemSchema>;

export interface DispatchPage {
  readonly items: readonly DispatchItem[];
  readonly cursor: string | null;
  /** Connections of this page left out because their owner paused the schedule (a manual sync still runs them). */
  readonly paused: number;
}

/**
 * One page of the schedule tick's connections, paused ones left out, in a
 * random order: the Map starts runs in list order, so a fixed order would
 * always queue the same connections last.
 */
export async function listDispatchPage(
  deps: Pick<StartSyncDeps, "connections" | "logger">,
  cursor: string | null,
  random: () => number = Math.random,
  limit: number = DISPATCH_PAGE_SIZE,
): Promise<DispatchPage> {
  const page = await deps.connections.listAllPage({ limit, cursor });
  const items = page.connections
    .filter((connection) => connection.paused !== true)
    .map((connection) => ({ business_account_id: connection.business_account_id, connection_id: connection.id }));
  shuffle(items, random);
  const paused = page.connections.length - items.length;
  deps.logger.info("dispatch page listed", { connections: items.length, paused, last_page: page.cursor === null });
  return { items, cursor: page.cursor, paused };
}

export type DispatchClaim =
  | { readonly claimed: true; readonly run: { readonly business_account_id: string; readonly connection_id: string; readonly run_id: string } }
  | { readonly claimed: false; readonly running_run_id: string };

/** The Map's first step for one connection: its run lock, or the run already in progress (skipped). */
export async function claimDispatchedRun(deps: StartSyncDeps, item: DispatchItem): Promise<DispatchClaim> {
  const claim = await claimRun(deps, { business_account_id: item.business_account_id, id: item.connection_id });
  if (!claim.claimed) {
    deps.logger.info("dispatch skipped: a run is in progress", { connection_id: item.connection_id, run_id: claim.runId });
    return { claimed: false, running_run_id: claim.runId };
  }
  return { claimed: true, run: claim.input };
}

/** Fisher-Yates, in place. */
function shuffle<T>(items: T[], random: () => number): void {
  for (let i = items.length - 1; i > 0; i -= 1) {
    const j = Math.floor(random() * (i + 1));
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
}


export interface DispatchResult {
  readonly started: number;
  /** Connections whose previous run is still in progress. */
  readonly alreadyRunning: number;
  /** Connections whose owner paused the schedule (a manual sync still runs them). */
  readonly paused: number;
  readonly failed: number;
}

/**
 * Starts a sync for every connection not paused, one after another, with no
 * cap: no longer the schedule tick (statemachine/dispatch.asl.json is, with
 * its cap on concurrent runs); kept for tests that start a few connections'
 * runs at once. One failure does not stop the others.
 */
export async function dispatchSyncs(deps: StartSyncDeps): Promise<DispatchResult> {
  let started = 0;
  let alreadyRunning = 0;
  let paused = 0;
  let failed = 0;
  for (const connection of await deps.connections.listAll()) {
    if (connection.paused === true) {
      paused += 1;
      continue;
    }
    try {
      const result = await startSync(deps, connection);
      if (result.started) started += 1;
      else alreadyRunning += 1;
    } catch (error) {
      failed += 1;
      deps.logger.error("dispatch failed for connection", { connection_id: connection.id, error: String(error) });
    }
  }
  deps.logger.info("dispatch finished", { started, already_running: alreadyRunning, paused, failed });
  return { started, alreadyRunning, paused, failed };
}
