import { createHash } from "node:crypto";
import type { WebhookEventType, WebhookPayload } from "./webhook-events";
import type { StoredWebhookEndpoint } from "./webhook-endpoint";
import { WEBHOOK_ATTEMPT_OFFSETS_SECONDS, WEBHOOK_MAX_ATTEMPTS } from "./webhook-limits";

/** One event to one endpoint, until it is delivered or given up: what the store keeps due. */
export interface PendingDelivery {
  /** Deterministic (endpoint and event), so an event handed over twice makes one delivery. */
  readonly id: string;
  readonly business_account_id: string;
  readonly endpoint_id: string;
  readonly event_id: string;
  readonly event_type: WebhookEventType;
  /** The exact bytes every attempt sends and signs. */
  readonly body: string;
  /** When the event was handed over: attempt n is due WEBHOOK_ATTEMPT_OFFSETS_SECONDS[n - 1] after it. */
  readonly first_at: string;
  /** Attempts started so far (a claimed attempt counts). */
  readonly attempts: number;
  readonly due_at: string;
}

export function deliveryId(endpointId: string, eventId: string): string {
  return createHash("sha256").update(`${endpointId}\n${eventId}`).digest("base64url").slice(0, 32);
}

/** The deliveries an event makes: one per endpoint of its workspace that subscribed to its type, due at once. */
export function planDeliveries(payloads: readonly WebhookPayload[], endpoints: readonly StoredWebhookEndpoint[], now: Date): PendingDelivery[] {
  return payloads.flatMap((payload) =>
    endpoints
      .filter((endpoint) => endpoint.event_types.includes(payload.type) && endpoint.business_account_id === payload.data.business_account_id)
      .map((endpoint) => ({
        id: deliveryId(endpoint.id, payload.id),
        business_account_id: endpoint.business_account_id,
        endpoint_id: endpoint.id,
        event_id: payload.id,
        event_type: payload.type,
        body: JSON.stringify(payload),
        first_at: now.toISOString(),
        attempts: 0,
        due_at: now.toISOString(),
      })),
  );
}

/** When attempt `attempt + 1` is due after `attempt` attempts failed, or null when none is left (given up). */
export function nextAttemptAt(firstAt: string, attempt: number): Date | null {
  if (attempt >= WEBHOOK_MAX_ATTEMPTS) return null;
  return new Date(Date.parse(firstAt) + WEBHOOK_ATTEMPT_OFFSETS_SECONDS[attempt]! * 1000);
}
