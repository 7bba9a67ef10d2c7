import type { Clock } from "../core/ports/clock";
import type { ChangeStore } from "../core/ports/change-store";
import type { Logger } from "../core/ports/logger";
import type { TokenCipher } from "../core/ports/token-cipher";
import type { ServiceEvent } from "../core/service-events";
import { attemptFailure } from "./attempt-failure";
import { nextAttemptAt, planDeliveries, type PendingDelivery } from "./webhook-delivery";
import { secretContext, type DeliveryAttempt } from "./webhook-endpoint";
import { committingRun, webhookEventsOf } from "./webhook-events";
import { WEBHOOK_CLAIM_LEASE_MS, WEBHOOK_MAX_ATTEMPTS, WEBHOOK_SWEEP_BATCH, WEBHOOK_SWEEP_CONCURRENCY } from "./webhook-limits";
import type { WebhookSender, WebhookStore } from "./webhook-ports";
import { EVENT_ID_HEADER, EVENT_TYPE_HEADER, SIGNATURE_HEADER, signatureHeader } from "./webhook-signature";

/** What delivering needs: the store, the change feed's cursors, the guarded sender, the cipher the secrets are kept under, and time. */
export interface WebhookDeliveryDeps {
  readonly webhooks: WebhookStore;
  readonly changes: Pick<ChangeStore, "runRange">;
  readonly sender: WebhookSender;
  readonly cipher: TokenCipher;
  readonly clock: Clock;
  readonly logger: Logger;
}

/**
 * An event the service sent (the EventBridge rule's target in AWS, the local publisher's) becomes one delivery per
 * subscribed endpoint of its workspace, kept due in the store; answers the new ones (a repeat makes none).
 */
export async function enqueueEvent(deps: Pick<WebhookDeliveryDeps, "webhooks" | "changes" | "clock">, event: ServiceEvent): Promise<PendingDelivery[]> {
  const endpoints = await deps.webhooks.listEndpoints(event.detail.business_account_id);
  if (endpoints.length === 0) return [];
  // The feed is read only for an endpoint that wants the changes, and only when the event has a run.
  const run = endpoints.some((endpoint) => endpoint.event_types.includes("changes.committed")) ? committingRun(event) : null;
  const payloads = webhookEventsOf(event, run === null ? null : await deps.changes.runRange(run.connectionId, run.runId));
  return deps.webhooks.enqueue(planDeliveries(payloads, endpoints, deps.clock.now()));
}

/** The deliveries due now, attempted (WEBHOOK_SWEEP_CONCURRENCY at once): what the schedule runs each minute. */
export async function sweepDueDeliveries(deps: WebhookDeliveryDeps, limit = WEBHOOK_SWEEP_BATCH): Promise<DeliveryAttempt[]> {
  return attemptDeliveries(deps, await deps.webhooks.due(deps.clock.now(), limit));
}

/** Attempts each delivery that this process manages to claim; answers the attempts made. */
export async function attemptDeliveries(deps: WebhookDeliveryDeps, deliveries: readonly PendingDelivery[]): Promise<DeliveryAttempt[]> {
  const queue = [...deliveries];
  const made: DeliveryAttempt[] = [];
  const worker = async () => {
    for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
      const attempt = await attemptDelivery(deps, next);
      if (attempt !== null) made.push(attempt);
    }
  };
  await Promise.all(Array.from({ length: Math.min(WEBHOOK_SWEEP_CONCURRENCY, queue.length) }, worker));
  return made;
}

/**
 * One attempt: claim, sign with the endpoint's current secret at the attempt's time, send, then record the outcome
 * and when the next attempt is due. A 2xx is delivered; anything else is retried on the schedule, except a refused
 * address. A delivery whose endpoint was deleted is dropped unsent.
 */
export async function attemptDelivery(deps: WebhookDeliveryDeps, delivery: PendingDelivery): Promise<DeliveryAttempt | null> {
  const now = deps.clock.now();
  const claimed = await deps.webhooks.claim(delivery, new Date(now.getTime() + WEBHOOK_CLAIM_LEASE_MS));
  if (claimed === null) return null;
  // A lease that ran out after the last attempt (its process died mid-send): that attempt was the last.
  if (claimed.attempts > WEBHOOK_MAX_ATTEMPTS) {
    await deps.webhooks.settle(claimed, null, null);
    return null;
  }
  const endpoint = await deps.webhooks.getEndpoint(claimed.business_account_id, claimed.endpoint_id);
  if (endpoint === null) {
    await deps.webhooks.settle(claimed, null, null);
    return null;
  }
  const secret = await deps.cipher.decrypt(endpoint.secret_ciphertext, secretContext(endpoint));
  const outcome = await deps.sender.send({
    url: endpoint.url,
    headers: {
      "content-type": "application/json",
      [SIGNATURE_HEADER]: signatureHeader(secret, now, claimed.body),
      [EVENT_ID_HEADER]: claimed.event_id,
      [EVENT_TYPE_HEADER]: claimed.event_type,
    },
    body: claimed.body,
  });
  const delivered = outcome.kind === "response" && outcome.status >= 200 && outcome.status < 300;
  const retryable = outcome.kind === "response" || outcome.error.retryable;
  const next = delivered || !retryable ? null : nextAttemptAt(claimed.first_at, claimed.attempts);
  const attempt: DeliveryAttempt = {
    delivery_id: claimed.id,
    event_id: claimed.event_id,
    event_type: claimed.event_type,
    attempt: claimed.attempts,
    attempted_at: now.toISOString(),
    status_code: outcome.kind === "response" ? outcome.status : null,
    error: outcome.kind === "failed" ? outcome.error.name : null,
    failure: attemptFailure(outcome),
    outcome: delivered ? "delivered" : next === null ? "failed" : "retrying",
    next_attempt_at: next?.toISOString() ?? null,
  };
  await deps.webhooks.settle(claimed, attempt, next);
  const log = delivered ? deps.logger.info : deps.logger.warn;
  log.call(deps.logger, "webhook attempt", {
    business_account_id: claimed.business_account_id,
    endpoint_id: claimed.endpoint_id,
    event_id: claimed.event_id,
    event_type: claimed.event_type,
    attempt: attempt.attempt,
    status_code: attempt.status_code,
    error: attempt.error,
    outcome: attempt.outcome,
  });
  return attempt;
}
