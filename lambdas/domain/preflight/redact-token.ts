import { redactSecret } from "../source-contract/redact-secret";

export { REDACTED } from "../source-contract/redact-secret";

/**
 * The service's redaction rule (any run of 8+ characters of a secret, or of its
 * base64 and URL-encoded forms) for each secret the kit holds: the token and
 * the altered tokens it sends to check that they are refused.
 */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  return secrets.reduce((out, secret) => redactSecret(out, secret), text);
}
