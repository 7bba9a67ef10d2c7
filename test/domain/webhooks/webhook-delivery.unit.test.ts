import { describe, expect, test } from "vitest";
import { deliveryId, nextAttemptAt, planDeliveries } from "../../../lambdas/domain/webhooks/webhook-delivery";
import type { StoredWebhookEndpoint } from "../../../lambdas/domain/webhooks/webhook-endpoint";
import { webhookEventsOf } from "../../../lambdas/domain/webhooks/webhook-events";
import { WEBHOOK_ATTEMPT_OFFSETS_SECONDS, WEBHOOK_MAX_ATTEMPTS } from "../../../lambdas/domain/webhooks/webhook-limits";
import { runFinished } from "../../builders/service-events";

const FIRST = "2026-03-01T12:00:00.000Z";
const endpoint = (id: string, types: StoredWebhookEndpoint["event_types"], account = "acct-1"): StoredWebhookEndpoint => ({
  id,
  business_account_id: account,
  url: "https://hooks.example.com/in",
  event_types: types,
  secret_ciphertext: "c",
  created_at: FIRST,
  updated_at: FIRST,
});

describe("the retry schedule: attempts at 0, 30 s, 2 min, 10 min and 1 h, then given up", () => {
  test("the stated offsets are the schedule", () => {
    expect(WEBHOOK_ATTEMPT_OFFSETS_SECONDS).toEqual([0, 30, 120, 600, 3_600]);
    expect(WEBHOOK_MAX_ATTEMPTS).toBe(5);
  });

  test("after attempt n fails, attempt n+1 is due at its offset from the first; after the fifth none is", () => {
    const first = Date.parse(FIRST);
    expect(nextAttemptAt(FIRST, 1)?.getTime()).toBe(first + 30_000);
    expect(nextAttemptAt(FIRST, 2)?.getTime()).toBe(first + 120_000);
    expect(nextAttemptAt(FIRST, 3)?.getTime()).toBe(first + 600_000);
    expect(nextAttemptAt(FIRST, 4)?.getTime()).toBe(first + 3_600_000);
    expect(nextAttemptAt(FIRST, 5)).toBeNull();
    expect(nextAttemptAt(FIRST, 6)).toBeNull();
  });
});

describe("the delivery plan", () => {
  test("one delivery per endpoint of the event's workspace subscribed to its type, due at once", () => {
    const payloads = webhookEventsOf(runFinished({ records: 3 }));
    const now = new Date(FIRST);
    const planned = planDeliveries(payloads, [endpoint("e-runs", ["run.finished"]), endpoint("e-changes", ["changes.committed"]), endpoint("e-stale", ["connection.stale"])], now);
    expect(planned.map((d) => [d.endpoint_id, d.event_type, d.attempts, d.due_at])).toEqual([
      ["e-runs", "run.finished", 0, FIRST],
      ["e-changes", "changes.committed", 0, FIRST],
    ]);
    expect(JSON.parse(planned[0]!.body)).toEqual(payloads[0]);
  });

  test("an endpoint of another workspace gets nothing, even subscribed to the type", () => {
    const planned = planDeliveries(webhookEventsOf(runFinished({ records: 1 })), [endpoint("e-other", ["run.finished"], "acct-2")], new Date(FIRST));
    expect(planned).toEqual([]);
  });

  test("a delivery's id is the same for the same endpoint and event (an event handed over twice is one delivery), different otherwise", () => {
    expect(deliveryId("e-1", "evt-1")).toBe(deliveryId("e-1", "evt-1"));
    expect(deliveryId("e-1", "evt-1")).not.toBe(deliveryId("e-2", "evt-1"));
    expect(deliveryId("e-1", "evt-1")).not.toBe(deliveryId("e-1", "evt-2"));
    // The separator keeps ("e-1", "2evt") and ("e-12", "evt") apart.
    expect(deliveryId("e-1", "2evt")).not.toBe(deliveryId("e-12", "evt"));
  });
});
