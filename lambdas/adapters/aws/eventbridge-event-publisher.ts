import { PutEventsCommand, type EventBridgeClient } from "@aws-sdk/client-eventbridge";
import type { EventPublisher } from "../../domain/core/ports/event-publisher";
import { EVENT_SOURCE } from "../../domain/core/service-events";
import { atEdge, awsErrorText } from "./aws-busy-errors";

/** EventBridge's default bus of the account and region: where AWS's own events land and rules are made by default. */
export const DEFAULT_EVENT_BUS = "default";

/** PutEvents answered 200 but refused the entry (FailedEntryCount 1): its ErrorCode and ErrorMessage. */
export class EventNotPublishedError extends Error {
  override readonly name = "EventNotPublishedError";
}

/**
 * The EventPublisher in AWS: one PutEvents entry per event on the default bus,
 * source EVENT_SOURCE, the detail type as DetailType and the detail as JSON
 * (https://docs.aws.amazon.com/eventbridge/latest/APIReference/API_PutEventsRequestEntry.html).
 * PutEvents can succeed as a call and still refuse an entry, so the answer's
 * FailedEntryCount is checked.
 */
export class EventBridgeEventPublisher implements EventPublisher {
  private readonly client: Pick<EventBridgeClient, "send">;

  constructor(options: { readonly client: EventBridgeClient }) {
    this.client = atEdge(options.client, (error) => new EventNotPublishedError(awsErrorText(error), { cause: error }));
  }

  async publish(event: Parameters<EventPublisher["publish"]>[0]): Promise<void> {
    const out = await this.client.send(
      new PutEventsCommand({
        Entries: [{ EventBusName: DEFAULT_EVENT_BUS, Source: EVENT_SOURCE, DetailType: event.detail_type, Detail: JSON.stringify(event.detail) }],
      }),
    );
    if ((out.FailedEntryCount ?? 0) > 0) {
      const entry = out.Entries?.[0];
      throw new EventNotPublishedError(`PutEvents refused the ${event.detail_type} event: ${entry?.ErrorCode ?? "?"} ${entry?.ErrorMessage ?? ""}`.trim());
    }
  }
}
