import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

/**
 * How each delivery is signed, as Stripe and Svix do: HMAC-SHA256, keyed by
 * the endpoint's secret (the whole `whsec_...` string, as UTF-8), over
 * `<timestamp>.<body>`, where the timestamp is the attempt's Unix seconds and
 * the body the exact bytes sent. The header carries both:
 * `Crm-Webhook-Signature: t=<timestamp>,v1=<hex digest>`. The timestamp is
 * signed so a receiver can refuse a replayed delivery (docs/webhooks.md).
 */
export const SIGNATURE_HEADER = "Crm-Webhook-Signature";
export const EVENT_ID_HEADER = "Crm-Webhook-Event-Id";
export const EVENT_TYPE_HEADER = "Crm-Webhook-Event-Type";
export const SECRET_PREFIX = "whsec_";

/** A new endpoint secret: 32 random bytes, base64url, behind a prefix that says what it is. */
export function newWebhookSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(32).toString("base64url")}`;
}

export function signatureDigest(secret: string, timestampSeconds: number, body: string): string {
  return createHmac("sha256", secret).update(`${timestampSeconds}.${body}`, "utf8").digest("hex");
}

/** The header's value for one attempt. */
export function signatureHeader(secret: string, at: Date, body: string): string {
  const timestamp = Math.floor(at.getTime() / 1000);
  return `t=${timestamp},v1=${signatureDigest(secret, timestamp, body)}`;
}

/**
 * What a receiver does (the docs' sample is this function): parse the header, recompute the digest over the
 * received bytes, compare in constant time, and refuse a timestamp further than `toleranceSeconds` from now.
 */
export function verifySignature(secret: string, header: string, body: string, now: Date, toleranceSeconds = 300): boolean {
  const parts = new Map<string, string[]>();
  for (const item of header.split(",")) {
    const [key, ...rest] = item.trim().split("=");
    if (key === undefined || rest.length === 0) continue;
    parts.set(key, [...(parts.get(key) ?? []), rest.join("=")]);
  }
  const timestamp = Number(parts.get("t")?.[0]);
  if (!Number.isInteger(timestamp) || Math.abs(now.getTime() / 1000 - timestamp) > toleranceSeconds) return false;
  const expected = Buffer.from(signatureDigest(secret, timestamp, body), "hex");
  return (parts.get("v1") ?? []).some((candidate) => {
    const given = Buffer.from(candidate, "hex");
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}
