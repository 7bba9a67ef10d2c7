import { randomUUID } from "node:crypto";
import type { BaseUrlPolicy } from "../core/ports/base-url-policy";
import type { Clock } from "../core/ports/clock";
import type { Logger } from "../core/ports/logger";
import type { TokenCipher } from "../core/ports/token-cipher";
import { parseFields } from "../onboarding/connection-input";
import { ConflictError, InvalidFieldError, NotFoundError } from "../onboarding/onboarding-errors";
import {
  CreateWebhookSchema,
  secretContext,
  webhookResource,
  type DeliveryAttempt,
  type StoredWebhookEndpoint,
  type WebhookEndpoint,
} from "./webhook-endpoint";
import { WEBHOOK_DELIVERIES_LISTED, WEBHOOK_ENDPOINTS_PER_WORKSPACE } from "./webhook-limits";
import type { WebhookStore } from "./webhook-ports";
import { newWebhookSecret } from "./webhook-signature";

/** What the webhook routes need beyond the onboarding API's ports. */
export interface WebhookDeps {
  readonly webhooks: WebhookStore;
  /** The endpoint URL rules: the SSRF guard's, https where loopback is refused. */
  readonly webhookUrls: BaseUrlPolicy;
}

type Deps = WebhookDeps & { readonly cipher: TokenCipher; readonly clock: Clock; readonly logger: Logger };

/** Endpoint ids are the service's own UUIDs: anything else names nothing (404 without asking the store). */
const ENDPOINT_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Tenant-scoped: another workspace's endpoint is not found, exactly like an unknown one. */
async function findEndpoint(deps: Deps, account: string, id: string): Promise<StoredWebhookEndpoint> {
  const stored = ENDPOINT_ID.test(id) ? await deps.webhooks.getEndpoint(account, id) : null;
  if (stored === null) throw new NotFoundError(`no webhook ${id}`);
  return stored;
}

/** Registers an endpoint; the answer holds its secret, the only time it is shown. */
export async function createWebhook(deps: Deps, account: string, body: Record<string, unknown>): Promise<WebhookEndpoint & { secret: string }> {
  const input = parseFields(CreateWebhookSchema, body);
  const checked = deps.webhookUrls.check(input.url);
  if (!checked.ok) throw new InvalidFieldError("url", checked.rule);
  if ((await deps.webhooks.listEndpoints(account)).length >= WEBHOOK_ENDPOINTS_PER_WORKSPACE) {
    throw new ConflictError(`a workspace has at most ${WEBHOOK_ENDPOINTS_PER_WORKSPACE} webhook endpoints: delete one first`);
  }
  const id = randomUUID();
  const secret = newWebhookSecret();
  const now = deps.clock.now().toISOString();
  const stored: StoredWebhookEndpoint = {
    id,
    business_account_id: account,
    url: checked.url,
    event_types: input.event_types,
    ...(input.description === undefined ? {} : { description: input.description }),
    secret_ciphertext: await deps.cipher.encrypt(secret, secretContext({ business_account_id: account, id })),
    created_at: now,
    updated_at: now,
  };
  await deps.webhooks.putEndpoint(stored);
  deps.logger.info("webhook created", { business_account_id: account, endpoint_id: id, event_types: input.event_types });
  return { ...webhookResource(stored), secret };
}

export async function listWebhooks(deps: Deps, account: string): Promise<WebhookEndpoint[]> {
  return (await deps.webhooks.listEndpoints(account)).map(webhookResource);
}

export async function getWebhook(deps: Deps, account: string, id: string): Promise<WebhookEndpoint> {
  return webhookResource(await findEndpoint(deps, account, id));
}

/** Deleted at once: its deliveries still due are dropped unsent; the attempts' rows expire with their TTL. */
export async function deleteWebhook(deps: Deps, account: string, id: string): Promise<void> {
  await findEndpoint(deps, account, id);
  await deps.webhooks.deleteEndpoint(account, id);
  deps.logger.info("webhook deleted", { business_account_id: account, endpoint_id: id });
}

/** A new secret, shown this once; the next attempt of every delivery is signed with it, the old one no longer. */
export async function rotateWebhookSecret(deps: Deps, account: string, id: string): Promise<WebhookEndpoint & { secret: string }> {
  const current = await findEndpoint(deps, account, id);
  const secret = newWebhookSecret();
  const next: StoredWebhookEndpoint = {
    ...current,
    secret_ciphertext: await deps.cipher.encrypt(secret, secretContext(current)),
    updated_at: deps.clock.now().toISOString(),
  };
  await deps.webhooks.putEndpoint(next);
  deps.logger.info("webhook secret rotated", { business_account_id: account, endpoint_id: id });
  return { ...webhookResource(next), secret };
}

/** The endpoint's last attempts, newest first. */
export async function listDeliveries(deps: Deps, account: string, id: string): Promise<DeliveryAttempt[]> {
  await findEndpoint(deps, account, id);
  return deps.webhooks.listAttempts(account, id, WEBHOOK_DELIVERIES_LISTED);
}
