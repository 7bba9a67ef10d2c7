import * as v from "valibot";
import type { Clock } from "../core/ports/clock";
import type { EventPublisher } from "../core/ports/event-publisher";
import type { Logger } from "../core/ports/logger";
import type { NotificationStore } from "../core/ports/notification-store";
import { ServiceEventSchema, type ServiceEvent } from "../core/service-events";

/**
 * The EventPublisher the domain uses, in both runtimes: each event is checked
 * against its schema (a strict one: a field not in it, a token say, fails here,
 * never leaves), recorded in the workspace's notifications once per event id,
 * and only then handed to `out` (EventBridge, or the log). An event already
 * recorded is not sent again, so a retried run end or a connection still
 * stale sends nothing more. Never throws: an event that could not be sent is
 * logged, and the run or audit it describes is unaffected.
 */
export function notifyingPublisher(deps: {
  readonly notifications: NotificationStore;
  readonly out: EventPublisher;
  readonly clock: Clock;
  readonly logger: Logger;
}): EventPublisher {
  return {
    async publish(input: ServiceEvent): Promise<void> {
      const { detail_type: detailType, detail } = input;
      try {
        const event = v.parse(ServiceEventSchema, input);
        const fresh = await deps.notifications.add(detail.business_account_id, {
          id: detail.event_id,
          detail_type: event.detail_type,
          connection_id: detail.connection_id,
          at: deps.clock.now().toISOString(),
          detail: event.detail,
        });
        if (fresh) await deps.out.publish(event);
      } catch (error) {
        deps.logger.error("event not sent", {
          detail_type: detailType,
          event_id: detail.event_id,
          connection_id: detail.connection_id,
          error: error instanceof Error ? error.name : String(error),
        });
      }
    },
  };
}
