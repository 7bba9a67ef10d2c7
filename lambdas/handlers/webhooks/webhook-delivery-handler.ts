import * as v from "valibot";
import { EVENT_SOURCE, ServiceEventSchema } from "../../domain/core/service-events";
import { attemptDeliveries, enqueueEvent, sweepDueDeliveries, type WebhookDeliveryDeps } from "../../domain/webhooks/deliver-webhooks";

/** What the one function is handed: the service's own event (the rule on the default bus), or the minute's schedule. */
const IncomingSchema = v.union([
  v.object({ source: v.literal(EVENT_SOURCE), "detail-type": v.string(), detail: v.record(v.string(), v.unknown()) }),
  v.object({ source: v.literal("aws.events"), "detail-type": v.literal("Scheduled Event") }),
]);

/**
 * The WebhookDelivery function (docs/webhooks.md): an event of the service's becomes its deliveries, whose first
 * attempts it makes at once; the schedule's tick attempts whatever is due (the retries, and any attempt whose
 * process died). Answers the number of attempts made.
 */
export function makeWebhookDeliveryHandler(deps: WebhookDeliveryDeps): (event: unknown) => Promise<{ attempts: number }> {
  return async (raw) => {
    const incoming = v.parse(IncomingSchema, raw);
    if (incoming.source === "aws.events") return { attempts: (await sweepDueDeliveries(deps)).length };
    const event = v.parse(ServiceEventSchema, { detail_type: incoming["detail-type"], detail: incoming.detail });
    const fresh = await enqueueEvent(deps, event);
    return { attempts: (await attemptDeliveries(deps, fresh)).length };
  };
}
