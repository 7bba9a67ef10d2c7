import type { DeliveryAttempt, StoredWebhookEndpoint } from "./webhook-endpoint";
import type { PendingDelivery } from "./webhook-delivery";

/** The workspace's endpoints, the deliveries due and the attempts made (DynamoDB in both runtimes). */
export interface WebhookStore {
  putEndpoint(endpoint: StoredWebhookEndpoint): Promise<void>;
  getEndpoint(businessAccountId: string, id: string): Promise<StoredWebhookEndpoint | null>;
  listEndpoints(businessAccountId: string): Promise<StoredWebhookEndpoint[]>;
  deleteEndpoint(businessAccountId: string, id: string): Promise<void>;
  /** Keeps each delivery due, once per id: answers the ones that were new (an event handed over again adds none). */
  enqueue(deliveries: readonly PendingDelivery[]): Promise<PendingDelivery[]>;
  /** Deliveries due at `now` or before, earliest first, at most `limit`. */
  due(now: Date, limit: number): Promise<PendingDelivery[]>;
  /**
   * Takes one due delivery for an attempt: its attempts go up by one and it is due again at `leaseUntil` (so an
   * attempt whose process dies is made again). Null when another process took it first.
   */
  claim(delivery: PendingDelivery, leaseUntil: Date): Promise<PendingDelivery | null>;
  /** After the attempt: its row kept for the list, and the delivery due at `next` or gone (delivered, given up: null). */
  settle(claimed: PendingDelivery, attempt: DeliveryAttempt | null, next: Date | null): Promise<void>;
  /** The endpoint's last attempts, newest first. */
  listAttempts(businessAccountId: string, endpointId: string, limit: number): Promise<DeliveryAttempt[]>;
}

/** A request's outcome: the receiver's status, or why none came. */
export type SendOutcome =
  | { readonly kind: "response"; readonly status: number }
  | { readonly kind: "failed"; readonly error: WebhookSendError };

/** Sends one signed request (POST, JSON) to an endpoint through the SSRF guard, under WEBHOOK_REQUEST_TIMEOUT_MS. Never throws. */
export interface WebhookSender {
  send(request: { readonly url: string; readonly headers: Readonly<Record<string, string>>; readonly body: string }): Promise<SendOutcome>;
}

/** Why an attempt got no response. The delivery list shows the class's name. */
export abstract class WebhookSendError extends Error {
  abstract override readonly name: string;
  /** False when waiting cannot help: the attempt is the last. */
  abstract readonly retryable: boolean;
}
/** The receiver did not answer within WEBHOOK_REQUEST_TIMEOUT_MS (headers and body). */
export class WebhookTimeoutError extends WebhookSendError {
  override readonly name = "WebhookTimeoutError";
  readonly retryable = true;
}
/** DNS, TCP or TLS failed, or the connection broke. */
export class WebhookConnectionError extends WebhookSendError {
  override readonly name = "WebhookConnectionError";
  readonly retryable = true;
}
/** The URL's host is, or resolves to, a loopback, private, link-local or metadata address: refused, never retried. */
export class WebhookAddressRefusedError extends WebhookSendError {
  override readonly name = "WebhookAddressRefusedError";
  readonly retryable = false;
}
