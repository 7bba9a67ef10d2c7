import { randomBytes } from "node:crypto";
import { describe, expect, test } from "vitest";
import { TokenDecryptionError } from "../../../lambdas/domain/core/errors";
import type { TokenCipher } from "../../../lambdas/domain/core/ports/token-cipher";
import { cachingDecrypts } from "../../../lambdas/adapters/aws/cached-token-cipher";
import { AesGcmTokenCipher } from "../../../lambdas/adapters/local/aes-token-cipher";

/** The real AES twin, counting its decrypts (KMS has no local engine; its adapter is tested by its requests). */
function countingCipher(): TokenCipher & { decrypts: number } {
  const inner = new AesGcmTokenCipher(randomBytes(32));
  const counting = {
    decrypts: 0,
    encrypt: (plaintext: string, context: Parameters<TokenCipher["encrypt"]>[1]) => inner.encrypt(plaintext, context),
    decrypt: (ciphertext: string, context: Parameters<TokenCipher["decrypt"]>[1]) => {
      counting.decrypts += 1;
      return inner.decrypt(ciphertext, context);
    },
  };
  return counting;
}
const context = { businessAccountId: "acct", connectionId: "conn" };

describe("cachingDecrypts", () => {
  test("decrypts a ciphertext once per process, however many pages use it", async () => {
    const inner = countingCipher();
    const cipher = cachingDecrypts(inner);
    const ciphertext = await cipher.encrypt("source-token", context);
    for (let page = 0; page < 5; page += 1) expect(await cipher.decrypt(ciphertext, context)).toBe("source-token");
    expect(inner.decrypts).toBe(1);
  });

  test("a rotated token is a new ciphertext, decrypted afresh", async () => {
    const inner = countingCipher();
    const cipher = cachingDecrypts(inner);
    await cipher.decrypt(await cipher.encrypt("old", context), context);
    expect(await cipher.decrypt(await cipher.encrypt("new", context), context)).toBe("new");
    expect(inner.decrypts).toBe(2);
  });

  test("the encryption context still binds: a ciphertext under another connection is not served from the cache", async () => {
    const cipher = cachingDecrypts(countingCipher());
    const ciphertext = await cipher.encrypt("source-token", context);
    await cipher.decrypt(ciphertext, context);
    await expect(cipher.decrypt(ciphertext, { ...context, connectionId: "other" })).rejects.toBeInstanceOf(TokenDecryptionError);
  });

  test("a failed decrypt is not cached, and the cache keeps at most its size", async () => {
    const inner = countingCipher();
    const cipher = cachingDecrypts(inner, 2);
    await expect(cipher.decrypt("not-a-ciphertext", context)).rejects.toBeInstanceOf(TokenDecryptionError);
    await expect(cipher.decrypt("not-a-ciphertext", context)).rejects.toBeInstanceOf(TokenDecryptionError);
    expect(inner.decrypts).toBe(2);
    const [a, b, c] = await Promise.all(["a", "b", "c"].map((token) => cipher.encrypt(token, context)));
    for (const ciphertext of [a!, b!, c!, a!]) await cipher.decrypt(ciphertext, context);
    expect(inner.decrypts).toBe(2 + 4);
  });
});
