import { EventBridgeClient, PutEventsCommand } from "@aws-sdk/client-eventbridge";
import { describe, expect, test } from "vitest";
import { EventBridgeEventPublisher, EventNotPublishedError } from "../../../lambdas/adapters/aws/eventbridge-event-publisher";
import type { ServiceEvent } from "../../../lambdas/domain/core/service-events";
import { recordingClient as recordingClientOf } from "../../support/recording-client";

/** EventBridge has no local engine: the adapter's requests are recorded and answered (test/support/recording-client.ts). */
const recordingClient = (answer: (command: unknown) => unknown) => recordingClientOf(EventBridgeClient, answer);

const event: ServiceEvent = {
  detail_type: "Connection Stale",
  detail: {
    event_id: "stale:conn-1:leads@2026-03-01T10:00:00.000Z",
    business_account_id: "acct-1",
    connection_id: "conn-1",
    freshness_hours: 2,
    detected_at: "2026-03-01T13:00:00.000Z",
    stale_entities: [{ entity: "leads", data_as_of: "2026-03-01T10:00:00.000Z" }],
  },
};

describe("EventBridgeEventPublisher", () => {
  test("events go to the default bus: one PutEvents entry with the service's source, the detail type and the detail as JSON", async () => {
    const { client, sent } = recordingClient(() => ({ FailedEntryCount: 0, Entries: [{ EventId: "e-1" }] }));
    await new EventBridgeEventPublisher({ client }).publish(event);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toBeInstanceOf(PutEventsCommand);
    expect((sent[0] as PutEventsCommand).input).toEqual({
      Entries: [{ EventBusName: "default", Source: "crm.custom-integration", DetailType: "Connection Stale", Detail: JSON.stringify(event.detail) }],
    });
  });

  test("an entry PutEvents refused (FailedEntryCount 1) is an EventNotPublishedError naming its code", async () => {
    const { client } = recordingClient(() => ({ FailedEntryCount: 1, Entries: [{ ErrorCode: "InternalFailure", ErrorMessage: "try again" }] }));
    const error = await new EventBridgeEventPublisher({ client }).publish(event).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(EventNotPublishedError);
    expect((error as Error).message).toContain("InternalFailure");
  });
});
