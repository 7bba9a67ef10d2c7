import type { EventPublisher } from "../../domain/core/ports/event-publisher";
import type { Logger } from "../../domain/core/ports/logger";
import { EVENT_SOURCE } from "../../domain/core/service-events";

/** The local runtime's way out for events: one log line each, with what EventBridge would carry. */
export function logEventPublisher(logger: Logger): EventPublisher {
  return {
    async publish(event) {
      logger.info("event", { source: EVENT_SOURCE, detail_type: event.detail_type, detail: event.detail });
    },
  };
}
