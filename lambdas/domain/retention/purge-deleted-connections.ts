import type { Clock } from "../core/ports/clock";
import type { ConnectionStore } from "../core/ports/connection-store";
import type { Logger } from "../core/ports/logger";
import type { PurgeQueue } from "./purge-queue";

/** Items one invocation deletes at most: about 800 BatchWriteItem calls, minutes of work at most, far below the job's timeout. */
export const PURGE_MAX_ITEMS_PER_INVOCATION = 20_000;
/** How often the purge runs (the EventBridge rule in lib/, the local runtime's timer). */
export const PURGE_INTERVAL_MINUTES = 60;
/** Pending purges read per invocation; the rest wait for the next one. */
export const PURGE_MAX_CONNECTIONS_PER_INVOCATION = 100;

export interface PurgeDeps {
  readonly purges: PurgeQueue;
  readonly connections: ConnectionStore;
  readonly clock: Clock;
  readonly logger: Logger;
}

export interface PurgeResult {
  /** Connections whose data is now gone. */
  readonly purged: string[];
  /** Connections with data left when the budget ran out: the next invocation goes on. */
  readonly unfinished: string[];
  /** Pending purges dropped because their connection exists (a delete that failed after queueing its purge). */
  readonly kept: string[];
  readonly itemsDeleted: number;
}

/**
 * The bounded background job behind DELETE .../connections/{id}: deletes the
 * data of connections deleted at least DELETED_CONNECTION_PURGE_DELAY_SECONDS
 * ago, at most `maxItems` items per invocation; run hourly (EventBridge in
 * AWS, a timer locally). docs/retention.md.
 */
export async function purgeDeletedConnections(
  deps: PurgeDeps,
  budget: { readonly maxItems: number } = { maxItems: PURGE_MAX_ITEMS_PER_INVOCATION },
): Promise<PurgeResult> {
  const result: PurgeResult = { purged: [], unfinished: [], kept: [], itemsDeleted: 0 };
  let remaining = budget.maxItems;
  let itemsDeleted = 0;
  for (const purge of await deps.purges.due(deps.clock.now(), PURGE_MAX_CONNECTIONS_PER_INVOCATION)) {
    if (remaining <= 0) {
      result.unfinished.push(purge.connectionId);
      continue;
    }
    // The delete queues its purge before it deletes the connection; if that delete then failed, the connection lives.
    if ((await deps.connections.get(purge.businessAccountId, purge.connectionId)) !== null) {
      await deps.purges.complete(purge);
      result.kept.push(purge.connectionId);
      continue;
    }
    const step = await deps.purges.purgeSome(purge, remaining);
    remaining -= step.deleted;
    itemsDeleted += step.deleted;
    if (step.done) {
      await deps.purges.complete(purge);
      result.purged.push(purge.connectionId);
    } else {
      // The next invocation goes on there instead of asking every partition it has emptied again.
      if (step.resumeFrom !== undefined) await deps.purges.remember(purge, step.resumeFrom);
      result.unfinished.push(purge.connectionId);
    }
  }
  const finished = { ...result, itemsDeleted };
  deps.logger.info("purge of deleted connections finished", {
    purged: finished.purged.length,
    unfinished: finished.unfinished.length,
    kept: finished.kept.length,
    items_deleted: itemsDeleted,
  });
  return finished;
}
