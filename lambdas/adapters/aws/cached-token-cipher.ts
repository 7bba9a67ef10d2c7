import type { TokenCipher, TokenContext } from "../../domain/core/ports/token-cipher";

/** Distinct ciphertexts a process keeps decrypted; the oldest is dropped past this. */
export const DECRYPT_CACHE_ENTRIES = 64;

/**
 * A TokenCipher that decrypts each (context, ciphertext) once per process: the
 * page task runs once per page, and in a warm Lambda every page of a run would
 * otherwise call KMS Decrypt for the same ciphertext. Keyed by the ciphertext,
 * so a rotated token (a new ciphertext) is never served stale. The plaintext
 * stays in the process's memory, where it is anyway while a request is made.
 */
export function cachingDecrypts(cipher: TokenCipher, maxEntries = DECRYPT_CACHE_ENTRIES): TokenCipher {
  const cache = new Map<string, Promise<string>>();
  return {
    encrypt: (plaintext, context) => cipher.encrypt(plaintext, context),
    decrypt: (ciphertext, context: TokenContext) => {
      const key = JSON.stringify([context.businessAccountId, context.connectionId, ciphertext]);
      let plaintext = cache.get(key);
      if (plaintext === undefined) {
        // A failed decrypt is not kept: the next call tries again.
        plaintext = cipher.decrypt(ciphertext, context).catch((error: unknown) => {
          cache.delete(key);
          throw error;
        });
        cache.set(key, plaintext);
        if (cache.size > maxEntries) cache.delete(cache.keys().next().value as string);
      }
      return plaintext;
    },
  };
}
