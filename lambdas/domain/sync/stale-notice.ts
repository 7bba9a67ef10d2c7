import type { StoredConnection } from "../core/connection";
import { freshnessHours, staleEntities, type Freshness, type StaleEntity } from "../core/freshness";
import type { Clock } from "../core/ports/clock";
import type { EventPublisher } from "../core/ports/event-publisher";
import type { Logger } from "../core/ports/logger";
import type { RecordStore } from "../core/ports/record-store";
import { DETAIL_TYPE } from "../core/service-events";
import { REQUIRED_ENTITIES } from "../source-contract/entity-catalog";

/** What telling "Connection Stale" needs: the connection's freshness, the schedule's interval and where events go. */
export interface StaleCheckDeps {
  readonly records: Pick<RecordStore, "getFreshness">;
  readonly events: EventPublisher;
  /** The schedule's interval: the default freshness_hours is twice it, and the tick runs once per it. Null or absent: not known. */
  readonly scheduleIntervalMs?: number | null;
  readonly clock: Clock;
  readonly logger: Logger;
}

/**
 * Sends "Connection Stale" when a required entity's data is older than the
 * connection's freshness_hours at `now`. The event's id names the stale
 * data_as_of values, so the notifications record it once per stale state
 * (notifying-publisher.ts) whoever sees it: the run's end or the tick.
 * `changedSince`: send only when the stale entities differ from those at that
 * earlier time (the tick's way to try once per transition, not every tick).
 */
export async function staleNotice(
  deps: Pick<StaleCheckDeps, "events" | "scheduleIntervalMs">,
  connection: StoredConnection,
  freshness: Freshness,
  now: Date,
  options: { readonly changedSince?: Date } = {},
): Promise<void> {
  const hours = freshnessHours(connection.freshness_hours, deps.scheduleIntervalMs ?? null);
  const at = (when: Date) => staleEntities({ freshness, hours, required: REQUIRED_ENTITIES, createdAt: connection.created_at, now: when });
  const stale = at(now);
  if (hours === null || stale.length === 0) return;
  if (options.changedSince !== undefined && staleKey(at(options.changedSince)) === staleKey(stale)) return;
  await deps.events.publish({
    detail_type: DETAIL_TYPE.connectionStale,
    detail: {
      event_id: `stale:${connection.id}:${staleKey(stale)}`,
      business_account_id: connection.business_account_id,
      connection_id: connection.id,
      freshness_hours: hours,
      detected_at: now.toISOString(),
      stale_entities: stale,
    },
  });
}

function staleKey(stale: readonly StaleEntity[]): string {
  return stale.map((each) => `${each.entity}@${each.data_as_of ?? "never"}`).join(",");
}

/** The schedule ticks whose window a paused connection's turn to stale is told in: two, so a late tick cannot miss it. */
export const STALE_TICK_WINDOWS = 2;

/**
 * The tick's freshness check (docs/onboarding-api.md, "Freshness and stale"): a paused
 * connection gets no run, so no run's end would ever find it stale. Each tick
 * reads the freshness of the paused connections it listed (one Query each, and
 * only when their freshness_hours is known) and tells the ones that turned
 * stale within the last STALE_TICK_WINDOWS intervals; the event id keeps a
 * second try silent. A connection that is not paused gets a run from this tick
 * (or has one going), whose end checks it. Never throws: the tick goes on.
 */
export async function pausedStaleNotices(deps: StaleCheckDeps, connections: readonly StoredConnection[]): Promise<void> {
  const interval = deps.scheduleIntervalMs ?? null;
  const now = deps.clock.now();
  for (const connection of connections) {
    if (connection.paused !== true || freshnessHours(connection.freshness_hours, interval) === null) continue;
    try {
      const freshness = await deps.records.getFreshness(connection.id);
      // Without a known interval (a cron schedule) every tick tries: the event id still sends it once.
      const changedSince = interval === null ? undefined : new Date(now.getTime() - STALE_TICK_WINDOWS * interval);
      await staleNotice(deps, connection, freshness, now, changedSince === undefined ? {} : { changedSince });
    } catch (error) {
      deps.logger.warn("freshness not checked at the tick", { connection_id: connection.id, error: error instanceof Error ? error.name : String(error) });
    }
  }
}
