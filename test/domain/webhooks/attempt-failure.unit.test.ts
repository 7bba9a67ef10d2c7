import { describe, expect, test } from "vitest";
import { attemptFailure } from "../../../lambdas/domain/webhooks/attempt-failure";
import { WebhookAddressRefusedError, WebhookConnectionError, WebhookTimeoutError } from "../../../lambdas/domain/webhooks/webhook-ports";
import { webhookAddressPublic, webhookAnswers } from "../../../lambdas/domain/source-contract/rules/webhook-rules";

describe("a failed webhook attempt names its rule and fix", () => {
  test("webhook.answers: any 2xx is delivered (200 and 299), a 199, a 300 or a 500 is not", () => {
    expect(attemptFailure({ kind: "response", status: 200 })).toBeNull();
    expect(attemptFailure({ kind: "response", status: 299 })).toBeNull();
    for (const status of [199, 300, 500]) {
      expect(attemptFailure({ kind: "response", status })).toEqual({ rule: "webhook.answers", detail: `the endpoint answered ${status}, not a 2xx status`, fix: webhookAnswers.fix });
    }
  });

  test("webhook.answers: a receiver that hangs past the request's deadline, and a broken connection", () => {
    expect(attemptFailure({ kind: "failed", error: new WebhookTimeoutError("cut") })).toEqual({ rule: "webhook.answers", detail: "the endpoint did not answer within 10 seconds", fix: webhookAnswers.fix });
    expect(attemptFailure({ kind: "failed", error: new WebhookConnectionError("reset") })?.rule).toBe("webhook.answers");
  });

  test("webhook.address-public: a host resolving to a private address, the error's own message never shown", () => {
    const failure = attemptFailure({ kind: "failed", error: new WebhookAddressRefusedError("10.0.0.7 is private") });
    expect(failure).toEqual({ rule: "webhook.address-public", detail: expect.stringContaining("private, loopback or link-local"), fix: webhookAddressPublic.fix });
    expect(JSON.stringify(failure)).not.toContain("10.0.0.7");
  });
});
