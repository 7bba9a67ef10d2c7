import { afterEach, describe, expect, test } from "vitest";
import type { ResolveAll } from "../../../lambdas/adapters/source-http/ssrf/pinned-lookup";
import { createHttpWebhookSender } from "../../../lambdas/adapters/webhook-http/http-webhook-sender";
import { WebhookAddressRefusedError, WebhookConnectionError, WebhookTimeoutError } from "../../../lambdas/domain/webhooks/webhook-ports";
import { WEBHOOK_REQUEST_TIMEOUT_MS } from "../../../lambdas/domain/webhooks/webhook-limits";
import { closedPort } from "../../support/closed-port";
import { manualDeadline } from "../source-http/manual-deadline";
import { startWebhookReceiver, type WebhookReceiver } from "../../support/webhook-receiver";

let receiver: WebhookReceiver | undefined;
afterEach(async () => {
  await receiver?.close();
  receiver = undefined;
});

const send = (sender: ReturnType<typeof createHttpWebhookSender>, url: string) =>
  sender.send({ url, headers: { "content-type": "application/json", "crm-webhook-signature": "t=1,v1=ab" }, body: '{"id":"evt-1"}' });

describe("the webhook sender (node fetch through the SSRF guard, on a real loopback receiver)", () => {
  test("sends the body's exact bytes and the headers by POST, and answers the receiver's status", async () => {
    receiver = await startWebhookReceiver(() => ({ status: 503 }));
    const outcome = await send(createHttpWebhookSender({ allowLoopback: true }), receiver.url);
    expect(outcome).toEqual({ kind: "response", status: 503 });
    expect(receiver.received[0]!.body.toString("utf8")).toBe('{"id":"evt-1"}');
    expect(receiver.received[0]!.headers["crm-webhook-signature"]).toBe("t=1,v1=ab");
  });

  test("a receiver that hangs is cut by the request timeout (WEBHOOK_REQUEST_TIMEOUT_MS, fired by the test's deadline, no wait)", async () => {
    receiver = await startWebhookReceiver(() => ({ hang: true }));
    const deadline = manualDeadline();
    const sending = send(createHttpWebhookSender({ allowLoopback: true, deadline: deadline.timer }), receiver.url);
    await receiver.receivedCount(1);
    expect(deadline.started.map((d) => d.ms)).toEqual([WEBHOOK_REQUEST_TIMEOUT_MS]);
    deadline.started[0]!.fire();
    const outcome = await sending;
    expect(outcome.kind === "failed" && outcome.error).toBeInstanceOf(WebhookTimeoutError);
  });

  test("a host name that resolves to a private address is refused before any connection (the resolver stubbed), and not retried", async () => {
    const asked: string[] = [];
    const lookup: ResolveAll = async (hostname) => (asked.push(hostname), [{ address: "10.1.2.3", family: 4 }]);
    const outcome = await send(createHttpWebhookSender({ allowLoopback: false, lookup }), "https://hooks.internal.example/in");
    expect(asked).toEqual(["hooks.internal.example"]);
    expect(outcome.kind === "failed" && outcome.error).toBeInstanceOf(WebhookAddressRefusedError);
    expect(outcome.kind === "failed" && outcome.error.retryable).toBe(false);
  });

  test.each(["http://169.254.169.254/latest/meta-data", "http://127.0.0.1:9/hooks", "http://[::1]:9/"])("the address %s is refused where loopback is not allowed", async (url) => {
    const outcome = await send(createHttpWebhookSender({ allowLoopback: false }), url);
    expect(outcome.kind === "failed" && outcome.error).toBeInstanceOf(WebhookAddressRefusedError);
  });

  test("metadata stays refused even where loopback is allowed", async () => {
    const outcome = await send(createHttpWebhookSender({ allowLoopback: true }), "http://169.254.169.254/latest");
    expect(outcome.kind === "failed" && outcome.error).toBeInstanceOf(WebhookAddressRefusedError);
  });

  test("a closed port is a connection error, retried later", async () => {
    const outcome = await send(createHttpWebhookSender({ allowLoopback: true }), `http://127.0.0.1:${await closedPort()}/hooks`);
    expect(outcome.kind === "failed" && outcome.error).toBeInstanceOf(WebhookConnectionError);
    expect(outcome.kind === "failed" && outcome.error.retryable).toBe(true);
  });

  test("a redirect is not followed: the 3xx is the outcome", async () => {
    receiver = await startWebhookReceiver(() => ({ status: 307 }));
    expect(await send(createHttpWebhookSender({ allowLoopback: true }), receiver.url)).toEqual({ kind: "response", status: 307 });
    expect(receiver.received).toHaveLength(1);
  });
});
