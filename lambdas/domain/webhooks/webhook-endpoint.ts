import * as v from "valibot";
import { codePointLength } from "../core/characters";
import { IsoTimeSchema } from "../core/iso-time-schema";
import { LINE_OF_TEXT } from "../core/portable-patterns";
import { WEBHOOK_EVENT_TYPES } from "./webhook-events";
import { WEBHOOK_DESCRIPTION_MAX_LENGTH, WEBHOOK_URL_MAX_LENGTH } from "./webhook-limits";

/** An endpoint as stored: its secret only as the cipher's ciphertext. */
export interface StoredWebhookEndpoint {
  readonly id: string;
  readonly business_account_id: string;
  readonly url: string;
  readonly event_types: readonly (typeof WEBHOOK_EVENT_TYPES)[number][];
  readonly description?: string;
  readonly secret_ciphertext: string;
  readonly created_at: string;
  readonly updated_at: string;
}

const TYPES_RULE = `must be a non-empty list of ${WEBHOOK_EVENT_TYPES.join(", ")}`;

/** POST /webhooks: where to send, and which events. */
export const CreateWebhookSchema = v.strictObject({
  url: v.pipe(
    v.string("must be a string"),
    v.trim(),
    v.nonEmpty("must not be empty"),
    v.maxLength(WEBHOOK_URL_MAX_LENGTH, `must be at most ${WEBHOOK_URL_MAX_LENGTH} characters`),
  ),
  event_types: v.pipe(
    v.array(v.picklist(WEBHOOK_EVENT_TYPES, TYPES_RULE), TYPES_RULE),
    v.nonEmpty(TYPES_RULE),
    v.transform((types) => [...new Set(types)]),
  ),
  description: v.optional(
    v.pipe(
      v.string("must be a string"),
      v.regex(LINE_OF_TEXT, "must be one line of text"),
      v.trim(),
      // Characters as a person counts them (code points, as JSON Schema's maxLength does), not UTF-16 units.
      v.check((text) => codePointLength(text) <= WEBHOOK_DESCRIPTION_MAX_LENGTH, `must be at most ${WEBHOOK_DESCRIPTION_MAX_LENGTH} characters`),
      v.metadata({ maxLength: WEBHOOK_DESCRIPTION_MAX_LENGTH }),
    ),
  ),
});
export type CreateWebhookInput = v.InferOutput<typeof CreateWebhookSchema>;

/** An endpoint as every response shows it: never its secret. */
export const WebhookEndpointSchema = v.object({
  id: v.string(),
  url: v.string(),
  event_types: v.array(v.picklist(WEBHOOK_EVENT_TYPES)),
  description: v.nullable(v.string()),
  created_at: IsoTimeSchema,
  updated_at: IsoTimeSchema,
});
export type WebhookEndpoint = v.InferOutput<typeof WebhookEndpointSchema>;

/** The answer to creation and to rotation: the endpoint and its secret, shown this once. */
export const WebhookWithSecretSchema = v.object({ ...WebhookEndpointSchema.entries, secret: v.string() });
export const WebhookListSchema = v.object({ data: v.array(WebhookEndpointSchema) });

/** One attempt of one delivery, as GET .../deliveries lists it. */
export const DeliveryAttemptSchema = v.object({
  delivery_id: v.string(),
  event_id: v.string(),
  event_type: v.picklist(WEBHOOK_EVENT_TYPES),
  attempt: v.pipe(v.number(), v.integer(), v.minValue(1)),
  attempted_at: IsoTimeSchema,
  /** The receiver's HTTP status; null when no response came (then `error` names why). */
  status_code: v.nullable(v.number()),
  /** The failure's class: WebhookTimeoutError, WebhookConnectionError, WebhookAddressRefusedError; null on a response. */
  error: v.nullable(v.string()),
  /** Why the attempt failed, for the owner: a rule of the catalog (webhook.answers, webhook.address-public), what happened and the fix; null when delivered. */
  failure: v.nullable(v.object({ rule: v.string(), detail: v.string(), fix: v.string() })),
  outcome: v.picklist(["delivered", "retrying", "failed"]),
  next_attempt_at: v.nullable(IsoTimeSchema),
});
export type DeliveryAttempt = v.InferOutput<typeof DeliveryAttemptSchema>;
export const DeliveryAttemptListSchema = v.object({ data: v.array(DeliveryAttemptSchema) });

export function webhookResource(stored: StoredWebhookEndpoint): WebhookEndpoint {
  return {
    id: stored.id,
    url: stored.url,
    event_types: [...stored.event_types],
    description: stored.description ?? null,
    created_at: stored.created_at,
    updated_at: stored.updated_at,
  };
}

/** The cipher's context of an endpoint's secret: bound to its workspace and endpoint, like a source token to its connection. */
export const secretContext = (endpoint: Pick<StoredWebhookEndpoint, "business_account_id" | "id">) => ({
  businessAccountId: endpoint.business_account_id,
  connectionId: `webhook:${endpoint.id}`,
});
