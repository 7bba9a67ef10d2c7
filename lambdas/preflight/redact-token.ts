/**
 * Replaces every occurrence of each secret with a marker. The kit's own call
 * site: lambdas/source/redact-secret.ts (in progress elsewhere) can replace it
 * without touching the callers.
 */
export const REDACTED = "[redacted]";

export function redactSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  // Longest first, so that a secret containing another is replaced whole.
  for (const secret of [...secrets].filter((s) => s.length > 0).sort((a, b) => b.length - a.length)) {
    out = out.split(secret).join(REDACTED);
  }
  return out;
}
