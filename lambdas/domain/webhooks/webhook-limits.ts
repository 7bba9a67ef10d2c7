/**
 * The webhooks' numbers, named once (docs/webhooks.md quotes them from here).
 */

/**
 * When each attempt of one delivery is due, in seconds after the event was handed to the webhooks: the first at
 * once, then 30 s, 2 min, 10 min and 1 h. A delivery still failing at the last attempt is given up: retried for 1 h.
 */
export const WEBHOOK_ATTEMPT_OFFSETS_SECONDS = [0, 30, 120, 600, 3_600] as const;
export const WEBHOOK_MAX_ATTEMPTS = WEBHOOK_ATTEMPT_OFFSETS_SECONDS.length;
/** One request's deadline, headers and body: a receiver that hangs is cut here and the attempt counts as failed. */
export const WEBHOOK_REQUEST_TIMEOUT_MS = 10_000;
/** A claimed attempt's due time moves this far ahead, so an attempt whose process died is tried again (at least once). */
export const WEBHOOK_CLAIM_LEASE_MS = WEBHOOK_REQUEST_TIMEOUT_MS + 50_000;
/** Attempts listed by GET .../webhooks/{id}/deliveries, newest first. */
export const WEBHOOK_DELIVERIES_LISTED = 50;
/** Days an attempt's row is kept (DynamoDB TTL); the list shows the last WEBHOOK_DELIVERIES_LISTED of them. */
export const WEBHOOK_DELIVERY_RETENTION_DAYS = 30;
/** Endpoints one workspace may register. */
export const WEBHOOK_ENDPOINTS_PER_WORKSPACE = 10;
/** Longest endpoint URL, in characters (the same bound as a source's base_url). */
export const WEBHOOK_URL_MAX_LENGTH = 2048;
/** Longest description an owner gives an endpoint, in characters. */
export const WEBHOOK_DESCRIPTION_MAX_LENGTH = 200;
/** Due deliveries one sweep takes (AWS: each minute), and how many it sends at once. */
export const WEBHOOK_SWEEP_BATCH = 100;
export const WEBHOOK_SWEEP_CONCURRENCY = 10;
/** How often the due deliveries are swept (an EventBridge schedule in AWS, a timer locally): an attempt leaves at most this late. */
export const WEBHOOK_SWEEP_INTERVAL_MINUTES = 1;
