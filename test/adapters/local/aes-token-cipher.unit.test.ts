import { randomBytes } from "node:crypto";
import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { SyncError, TokenDecryptionError } from "../../../lambdas/domain/core/errors";
import type { TokenContext } from "../../../lambdas/domain/core/ports/token-cipher";
import { AesGcmTokenCipher, loadOrCreateKeyFile } from "../../../lambdas/adapters/local/aes-token-cipher";

const context: TokenContext = { businessAccountId: "acct-1", connectionId: "conn-1" };
const TOKEN = "sk_live_4f3c2b1a-the-source-token";
const cipher = new AesGcmTokenCipher(randomBytes(32));

async function expectDecryptionError(promise: Promise<string>): Promise<void> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(TokenDecryptionError);
  expect(error).toBeInstanceOf(SyncError);
  expect((error as Error).name).toBe("TokenDecryptionError");
  expect((error as TokenDecryptionError).retryable).toBe(false);
  expect((error as Error).message).not.toContain(TOKEN);
}

describe("AesGcmTokenCipher", () => {
  test("a token encrypted for a context decrypts under the same context", async () => {
    const ciphertext = await cipher.encrypt(TOKEN, context);
    expect(await cipher.decrypt(ciphertext, context)).toBe(TOKEN);
  });

  test("unicode and empty tokens round trip", async () => {
    for (const token of ["", "tökén-😀-#%"]) {
      expect(await cipher.decrypt(await cipher.encrypt(token, context), context)).toBe(token);
    }
  });

  test("the ciphertext does not contain the plaintext, in any encoding", async () => {
    const ciphertext = await cipher.encrypt(TOKEN, context);
    expect(ciphertext).not.toContain(TOKEN);
    expect(Buffer.from(ciphertext, "base64").includes(Buffer.from(TOKEN, "utf8"))).toBe(false);
  });

  test("the ciphertext is a versioned envelope: version 1 | 12-byte IV | 16-byte tag | body", async () => {
    const envelope = Buffer.from(await cipher.encrypt(TOKEN, context), "base64");
    expect(envelope[0]).toBe(1);
    expect(envelope.length).toBe(1 + 12 + 16 + Buffer.byteLength(TOKEN));
  });

  test("every encryption uses a fresh IV: the same token encrypts differently", async () => {
    const [first, second] = [await cipher.encrypt(TOKEN, context), await cipher.encrypt(TOKEN, context)];
    expect(first).not.toBe(second);
    expect(Buffer.from(first, "base64").subarray(1, 13)).not.toEqual(Buffer.from(second, "base64").subarray(1, 13));
  });

  test("a ciphertext copied to another connection of the same workspace fails to decrypt", async () => {
    const ciphertext = await cipher.encrypt(TOKEN, context);
    await expectDecryptionError(cipher.decrypt(ciphertext, { ...context, connectionId: "conn-2" }));
  });

  test("a ciphertext copied to another workspace fails to decrypt", async () => {
    const ciphertext = await cipher.encrypt(TOKEN, context);
    await expectDecryptionError(cipher.decrypt(ciphertext, { ...context, businessAccountId: "acct-2" }));
  });

  test("the context is bound as a whole, not as a concatenation", async () => {
    const ciphertext = await cipher.encrypt(TOKEN, { businessAccountId: "a", connectionId: "bc" });
    await expectDecryptionError(cipher.decrypt(ciphertext, { businessAccountId: "ab", connectionId: "c" }));
  });

  test("a tampered ciphertext fails to decrypt, whichever byte is changed", async () => {
    const envelope = Buffer.from(await cipher.encrypt(TOKEN, context), "base64");
    for (let index = 1; index < envelope.length; index += 1) {
      const tampered = Buffer.from(envelope);
      tampered[index] = tampered[index]! ^ 0x01;
      await expectDecryptionError(cipher.decrypt(tampered.toString("base64"), context));
    }
  });

  test("a truncated, non-base64 or unknown-version ciphertext fails to decrypt", async () => {
    const envelope = Buffer.from(await cipher.encrypt(TOKEN, context), "base64");
    await expectDecryptionError(cipher.decrypt(envelope.subarray(0, 20).toString("base64"), context));
    await expectDecryptionError(cipher.decrypt(envelope.subarray(0, envelope.length - 1).toString("base64"), context));
    await expectDecryptionError(cipher.decrypt("not base64!", context));
    await expectDecryptionError(cipher.decrypt(Buffer.concat([Buffer.of(2), envelope.subarray(1)]).toString("base64"), context));
  });

  test("a ciphertext from another key fails to decrypt", async () => {
    const ciphertext = await new AesGcmTokenCipher(randomBytes(32)).encrypt(TOKEN, context);
    await expectDecryptionError(cipher.decrypt(ciphertext, context));
  });

  test("a key that is not 32 bytes is refused", () => {
    expect(() => new AesGcmTokenCipher(randomBytes(16))).toThrow(RangeError);
  });
});

describe("loadOrCreateKeyFile", () => {
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "aes-key-"));
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  test("the key file is created with mode 0600 (parent dir too) and reused on the next load", async () => {
    const path = join(dir, "nested", "deeper", "token.key");
    const created = await loadOrCreateKeyFile(path);
    expect(created).toHaveLength(32);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect(await readFile(path)).toEqual(created);

    const reloaded = await loadOrCreateKeyFile(path);
    expect(reloaded).toEqual(created);

    const ciphertext = await new AesGcmTokenCipher(created).encrypt(TOKEN, context);
    expect(await new AesGcmTokenCipher(reloaded).decrypt(ciphertext, context)).toBe(TOKEN);
  });

  test("concurrent first loads all get the one key that was stored", async () => {
    const path = join(dir, "race", "token.key");
    const keys = await Promise.all(Array.from({ length: 8 }, () => loadOrCreateKeyFile(path)));
    const stored = await readFile(path);
    for (const key of keys) expect(key).toEqual(stored);
  });

  test("an existing file of the wrong size is refused and left untouched", async () => {
    const path = join(dir, "short.key");
    await writeFile(path, Buffer.alloc(31, 7));
    await expect(loadOrCreateKeyFile(path)).rejects.toThrow(/31 bytes, not 32/);
    expect(await readFile(path)).toEqual(Buffer.alloc(31, 7));
  });
});
