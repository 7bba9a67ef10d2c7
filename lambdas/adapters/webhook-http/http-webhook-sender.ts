import { SourceHardError } from "../../domain/core/errors";
import { SourceAddressRefusedError } from "../../domain/source-contract/source-address-refused-error";
import { WEBHOOK_REQUEST_TIMEOUT_MS } from "../../domain/webhooks/webhook-limits";
import {
  WebhookAddressRefusedError,
  WebhookConnectionError,
  WebhookTimeoutError,
  type SendOutcome,
  type WebhookSender,
} from "../../domain/webhooks/webhook-ports";
import { systemDeadlineTimer, withinDeadline, type DeadlineTimer } from "../source-http/request-deadline";
import { createGuardedFetch } from "../source-http/ssrf/guarded-fetch";
import type { ResolveAll } from "../source-http/ssrf/pinned-lookup";

export interface HttpWebhookSenderOptions {
  /** As for sources: loopback only in the local runtime and tests, never in the deployed stack. */
  readonly allowLoopback: boolean;
  /** The resolver the SSRF guard checks (tests play DNS through it). */
  readonly lookup?: ResolveAll;
  /** Starts the request's deadline; setTimeout by default (tests fire it themselves). */
  readonly deadline?: DeadlineTimer;
  readonly timeoutMs?: number;
}

/**
 * Sends a delivery with node's fetch through the sources' SSRF guard (createGuardedFetch: every resolved address
 * checked, the socket pinned to them, no redirect followed: a 3xx is the attempt's status). One deadline covers
 * the request until its status arrives; the body is never read (its status is the outcome), only let go.
 */
export function createHttpWebhookSender(options: HttpWebhookSenderOptions): WebhookSender {
  const fetch = createGuardedFetch({ allowLoopback: options.allowLoopback, ...(options.lookup === undefined ? {} : { lookup: options.lookup }) });
  const deadline = options.deadline ?? systemDeadlineTimer;
  const timeoutMs = options.timeoutMs ?? WEBHOOK_REQUEST_TIMEOUT_MS;
  return {
    async send(request): Promise<SendOutcome> {
      try {
        const status = await withinDeadline(
          deadline,
          timeoutMs,
          () => new WebhookTimeoutError(`no answer within ${timeoutMs} ms`),
          async (signal) => {
            const response = await fetch(request.url, { method: "POST", headers: request.headers, body: request.body, signal, redirect: "manual" });
            await response.body?.cancel().catch(() => undefined);
            return response.status;
          },
        );
        return { kind: "response", status };
      } catch (error) {
        return { kind: "failed", error: sendErrorOf(error) };
      }
    },
  };
}

/** The class the delivery list shows; the underlying message is dropped (it could quote the URL's parts). */
function sendErrorOf(error: unknown) {
  if (error instanceof WebhookTimeoutError) return error;
  if (error instanceof SourceAddressRefusedError || error instanceof SourceHardError) return new WebhookAddressRefusedError("the endpoint's address is refused");
  return new WebhookConnectionError("no connection to the endpoint");
}
