import type { EventPublisher } from "../../domain/core/ports/event-publisher";
import { attemptDeliveries, enqueueEvent, sweepDueDeliveries, type WebhookDeliveryDeps } from "../../domain/webhooks/deliver-webhooks";
import type { DeliveryAttempt } from "../../domain/webhooks/webhook-endpoint";

/**
 * The webhooks of the local runtime, on the same domain code as AWS's WebhookDelivery function: each event the
 * notifying publisher lets out is enqueued (awaited, so a run's end has its deliveries due before it returns) and
 * its first attempts run in this process; `sweep()` makes the attempts due later (the runtime's minute timer;
 * tests call it after moving their clock). `idle()` is the gate tests wait on instead of the clock.
 */
export class LocalWebhooks {
  private readonly inFlight = new Set<Promise<unknown>>();

  constructor(private readonly deps: WebhookDeliveryDeps) {}

  /** The events' second way out, beside the log. Never throws: a failure is logged, the run is unaffected. */
  readonly publisher: EventPublisher = {
    publish: async (event) => {
      try {
        const fresh = await enqueueEvent(this.deps, event);
        if (fresh.length > 0) this.track(attemptDeliveries(this.deps, fresh));
      } catch (error) {
        this.deps.logger.error("webhook deliveries not enqueued", { detail_type: event.detail_type, error: error instanceof Error ? error.name : "unknown" });
      }
    },
  };

  /** The attempts due now. */
  sweep(): Promise<DeliveryAttempt[]> {
    return this.track(sweepDueDeliveries(this.deps));
  }

  /** Resolves once every attempt started has been recorded. */
  async idle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  private track<T>(work: Promise<T>): Promise<T> {
    const tracked = work.finally(() => this.inFlight.delete(tracked));
    this.inFlight.add(tracked);
    tracked.catch((error: unknown) => this.deps.logger.error("webhook attempts failed", { error: error instanceof Error ? error.name : "unknown" }));
    return tracked;
  }
}

/** Both ways out, one after the other: the log line first, then the webhooks. */
export function bothWays(first: EventPublisher, second: EventPublisher): EventPublisher {
  return {
    publish: async (event) => {
      await first.publish(event);
      await second.publish(event);
    },
  };
}
