import { createHmac } from "node:crypto";
import { describe, expect, test } from "vitest";
import { newWebhookSecret, SECRET_PREFIX, signatureHeader, verifySignature } from "../../../lambdas/domain/webhooks/webhook-signature";

const AT = new Date("2026-03-01T12:00:00.000Z");
const T = AT.getTime() / 1000;

describe("each delivery is signed: HMAC-SHA256 over <timestamp>.<body>, as Stripe and Svix do", () => {
  test("the header is t=<unix seconds>,v1=<hex HMAC-SHA256 of '<t>.<body>' keyed by the whole secret>, computed independently here", () => {
    const secret = newWebhookSecret();
    const body = '{"id":"evt-1","type":"run.finished"}';
    const expected = createHmac("sha256", Buffer.from(secret, "utf8")).update(Buffer.from(`${T}.${body}`, "utf8")).digest("hex");
    expect(signatureHeader(secret, AT, body)).toBe(`t=${T},v1=${expected}`);
  });

  test("the signature verifies with the secret, and not with another secret", () => {
    const secret = newWebhookSecret();
    const body = JSON.stringify({ id: "evt-2", data: { name: "Zoë 👋" } });
    const header = signatureHeader(secret, AT, body);
    expect(verifySignature(secret, header, body, AT)).toBe(true);
    expect(verifySignature(newWebhookSecret(), header, body, AT)).toBe(false);
  });

  test("a body changed by one byte, or by one character in another Unicode composition, does not verify", () => {
    const secret = newWebhookSecret();
    const body = '{"name":"café"}';
    const header = signatureHeader(secret, AT, body);
    expect(verifySignature(secret, header, '{"name":"cafe"}', AT)).toBe(false);
    expect(verifySignature(secret, header, '{"name":"cafe\u0301"}', AT)).toBe(false);
    expect(verifySignature(secret, header, `${body} `, AT)).toBe(false);
  });

  test("the timestamp is signed: a replay older than the receiver's tolerance is refused, one at its edge accepted", () => {
    const secret = newWebhookSecret();
    const header = signatureHeader(secret, AT, "{}");
    expect(verifySignature(secret, header, "{}", new Date(AT.getTime() + 300_000), 300)).toBe(true);
    expect(verifySignature(secret, header, "{}", new Date(AT.getTime() + 301_000), 300)).toBe(false);
    expect(verifySignature(secret, header, "{}", new Date(AT.getTime() - 301_000), 300)).toBe(false);
    // The timestamp cannot be moved without breaking the digest.
    const moved = header.replace(`t=${T}`, `t=${T + 600}`);
    expect(verifySignature(secret, moved, "{}", new Date(AT.getTime() + 600_000))).toBe(false);
  });

  test("a header without t or v1, or with a malformed digest, does not verify", () => {
    const secret = newWebhookSecret();
    const header = signatureHeader(secret, AT, "{}");
    expect(verifySignature(secret, header.split(",")[1]!, "{}", AT)).toBe(false);
    expect(verifySignature(secret, header.split(",")[0]!, "{}", AT)).toBe(false);
    expect(verifySignature(secret, `t=${T},v1=zz`, "{}", AT)).toBe(false);
    expect(verifySignature(secret, "", "{}", AT)).toBe(false);
  });

  test("a secret is 32 random bytes behind its prefix: two are never equal", () => {
    const [a, b] = [newWebhookSecret(), newWebhookSecret()];
    expect(a.startsWith(SECRET_PREFIX)).toBe(true);
    expect(Buffer.from(a.slice(SECRET_PREFIX.length), "base64url")).toHaveLength(32);
    expect(a).not.toBe(b);
  });
});
