import {
  DecryptCommand,
  DisabledException,
  EncryptCommand,
  IncorrectKeyException,
  InvalidCiphertextException,
  KMSClient,
  KMSInternalException,
  KMSServiceException,
} from "@aws-sdk/client-kms";
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { describe, expect, test } from "vitest";
import {
  ENCRYPTION_CONTEXT_KEYS,
  KmsTokenCipher,
  kmsEncryptionContext,
} from "../../../lambdas/adapters/aws/kms-token-cipher";
import { StoreUnavailableError, SyncError, TokenDecryptionError } from "../../../lambdas/domain/core/errors";
import type { TokenContext } from "../../../lambdas/domain/core/ports/token-cipher";
import { recordingClient as recordingClientOf } from "../../support/recording-client";

const KEY_ID = "arn:aws:kms:eu-west-1:123456789012:key/11111111-2222-3333-4444-555555555555";
const OTHER_KEY_ID = "arn:aws:kms:eu-west-1:123456789012:key/99999999-8888-7777-6666-555555555555";
const TOKEN = "sk_live_4f3c2b1a-the-source-token";
const context: TokenContext = { businessAccountId: "acct-1", connectionId: "conn-1" };

/** KMS has no local engine: the adapter's requests are recorded and answered (test/support/recording-client.ts). */
const recordingClient = (answer: (command: unknown) => unknown) => recordingClientOf(KMSClient, answer);

/**
 * A fake KMS that really binds the encryption context, as KMS does: AES-256-GCM
 * under a per-key secret, with the canonical (key-sorted) encryption context as
 * additional authenticated data. The blob names its key, like a real KMS
 * ciphertext blob, so Decrypt with another KeyId is IncorrectKeyException and
 * a context or byte mismatch is InvalidCiphertextException.
 *
 * blob = key id length (1 byte) | key id | IV (12) | tag (16) | body
 */
function fakeKms(keyIds: readonly string[]) {
  const keys = new Map(keyIds.map((id) => [id, randomBytes(32)]));
  const aad = (encryptionContext: Record<string, string> | undefined) =>
    Buffer.from(JSON.stringify(Object.entries(encryptionContext ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))), "utf8");
  const invalid = () => new InvalidCiphertextException({ message: "", $metadata: {} });

  return recordingClient((command) => {
    if (command instanceof EncryptCommand) {
      const { KeyId, Plaintext, EncryptionContext } = command.input;
      const key = keys.get(KeyId ?? "");
      if (key === undefined || Plaintext === undefined) throw new Error("fake KMS: unknown key or no plaintext");
      const iv = randomBytes(12);
      const cipher = createCipheriv("aes-256-gcm", key, iv);
      cipher.setAAD(aad(EncryptionContext));
      const body = Buffer.concat([cipher.update(Plaintext), cipher.final()]);
      const id = Buffer.from(KeyId!, "utf8");
      return { KeyId, CiphertextBlob: new Uint8Array(Buffer.concat([Buffer.of(id.length), id, iv, cipher.getAuthTag(), body])) };
    }
    if (command instanceof DecryptCommand) {
      const { CiphertextBlob, KeyId, EncryptionContext } = command.input;
      const blob = Buffer.from(CiphertextBlob ?? new Uint8Array());
      if (blob.length < 1 || blob.length < 1 + blob[0]! + 28) throw invalid();
      const blobKeyId = blob.subarray(1, 1 + blob[0]!).toString("utf8");
      if (KeyId !== undefined && KeyId !== blobKeyId) {
        throw new IncorrectKeyException({ message: "The key ID in the request does not identify a CMK that can perform this operation.", $metadata: {} });
      }
      const key = keys.get(blobKeyId);
      if (key === undefined) throw invalid();
      const rest = blob.subarray(1 + blob[0]!);
      try {
        const decipher = createDecipheriv("aes-256-gcm", key, rest.subarray(0, 12));
        decipher.setAAD(aad(EncryptionContext));
        decipher.setAuthTag(rest.subarray(12, 28));
        return { KeyId: blobKeyId, Plaintext: new Uint8Array(Buffer.concat([decipher.update(rest.subarray(28)), decipher.final()])) };
      } catch {
        throw invalid();
      }
    }
    throw new Error("fake KMS: unexpected command");
  });
}

async function expectDecryptionError(promise: Promise<string>, ciphertext: string): Promise<void> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(TokenDecryptionError);
  expect(error).toBeInstanceOf(SyncError);
  const typed = error as TokenDecryptionError;
  expect(typed.name).toBe("TokenDecryptionError");
  expect(typed.retryable).toBe(false);
  expect(typed.cause).toBeUndefined();
  expect(typed.message).not.toContain(TOKEN);
  if (ciphertext.length > 0) expect(typed.message).not.toContain(ciphertext);
  expect(JSON.stringify({ ...typed, message: typed.message, stack: typed.stack })).not.toContain(TOKEN);
}

describe("kmsEncryptionContext", () => {
  test("names both keys, from the exported key names", () => {
    expect(ENCRYPTION_CONTEXT_KEYS).toEqual({ businessAccountId: "business_account_id", connectionId: "connection_id" });
    expect(kmsEncryptionContext(context)).toEqual({ business_account_id: "acct-1", connection_id: "conn-1" });
    expect(Object.keys(kmsEncryptionContext(context)).sort()).toEqual(Object.values(ENCRYPTION_CONTEXT_KEYS).sort());
  });
});

describe("KmsTokenCipher: requests", () => {
  test("encrypt: one Encrypt with the key, the utf8 token bytes and both context keys; returns the blob in base64", async () => {
    const blob = new Uint8Array(randomBytes(40));
    const { client, sent } = recordingClient(() => ({ KeyId: KEY_ID, CiphertextBlob: blob }));
    const cipher = new KmsTokenCipher({ client, keyId: KEY_ID });
    const token = "tökén-😀";

    await expect(cipher.encrypt(token, context)).resolves.toBe(Buffer.from(blob).toString("base64"));
    expect(sent).toHaveLength(1);
    expect(sent[0]).toBeInstanceOf(EncryptCommand);
    const input = (sent[0] as EncryptCommand).input;
    expect(Object.keys(input).sort()).toEqual(["EncryptionContext", "KeyId", "Plaintext"]);
    expect(input.KeyId).toBe(KEY_ID);
    expect(input.EncryptionContext).toEqual({ business_account_id: "acct-1", connection_id: "conn-1" });
    expect(input.Plaintext).toBeInstanceOf(Uint8Array);
    expect(Buffer.from(input.Plaintext!).equals(Buffer.from(token, "utf8"))).toBe(true);
  });

  test("decrypt: one Decrypt with the base64-decoded blob, the key and the same context; returns the utf8 plaintext", async () => {
    const blob = randomBytes(48);
    const token = "tökén-😀";
    const { client, sent } = recordingClient(() => ({ KeyId: KEY_ID, Plaintext: new Uint8Array(Buffer.from(token, "utf8")) }));
    const cipher = new KmsTokenCipher({ client, keyId: KEY_ID });

    await expect(cipher.decrypt(blob.toString("base64"), context)).resolves.toBe(token);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toBeInstanceOf(DecryptCommand);
    const input = (sent[0] as DecryptCommand).input;
    expect(Object.keys(input).sort()).toEqual(["CiphertextBlob", "EncryptionContext", "KeyId"]);
    expect(input.KeyId).toBe(KEY_ID);
    expect(input.EncryptionContext).toEqual({ business_account_id: "acct-1", connection_id: "conn-1" });
    expect(Buffer.from(input.CiphertextBlob!).equals(blob)).toBe(true);
  });

  test("decrypt: a ciphertext that is not base64 (or empty) fails with TokenDecryptionError without calling KMS", async () => {
    const { client, sent } = recordingClient(() => {
      throw new Error("not called");
    });
    const cipher = new KmsTokenCipher({ client, keyId: KEY_ID });
    for (const bad of ["not base64!", "", "QUJ", "QUJDRA=x"]) {
      await expectDecryptionError(cipher.decrypt(bad, context), bad);
    }
    expect(sent).toHaveLength(0);
  });
});

describe("KmsTokenCipher: against a fake KMS that binds the encryption context", () => {
  const { client } = fakeKms([KEY_ID, OTHER_KEY_ID]);
  const cipher = new KmsTokenCipher({ client, keyId: KEY_ID });

  test("a token encrypted for a context decrypts under the same context", async () => {
    for (const token of [TOKEN, "tökén-😀-#%"]) {
      const ciphertext = await cipher.encrypt(token, context);
      expect(ciphertext).not.toContain(token);
      expect(await cipher.decrypt(ciphertext, context)).toBe(token);
    }
  });

  test("a ciphertext copied to another connection of the same workspace fails with TokenDecryptionError", async () => {
    const ciphertext = await cipher.encrypt(TOKEN, context);
    await expectDecryptionError(cipher.decrypt(ciphertext, { ...context, connectionId: "conn-2" }), ciphertext);
  });

  test("a ciphertext copied to another workspace fails with TokenDecryptionError", async () => {
    const ciphertext = await cipher.encrypt(TOKEN, context);
    await expectDecryptionError(cipher.decrypt(ciphertext, { ...context, businessAccountId: "acct-2" }), ciphertext);
  });

  test("the context is bound by key: swapping the two ids fails", async () => {
    const ciphertext = await cipher.encrypt(TOKEN, { businessAccountId: "x", connectionId: "y" });
    await expectDecryptionError(cipher.decrypt(ciphertext, { businessAccountId: "y", connectionId: "x" }), ciphertext);
  });

  test("a tampered ciphertext fails with TokenDecryptionError", async () => {
    const blob = Buffer.from(await cipher.encrypt(TOKEN, context), "base64");
    blob[blob.length - 1] = blob[blob.length - 1]! ^ 0x01;
    const tampered = blob.toString("base64");
    await expectDecryptionError(cipher.decrypt(tampered, context), tampered);
  });

  test("a ciphertext of another KMS key (IncorrectKeyException) fails with TokenDecryptionError", async () => {
    const ciphertext = await new KmsTokenCipher({ client, keyId: OTHER_KEY_ID }).encrypt(TOKEN, context);
    await expectDecryptionError(cipher.decrypt(ciphertext, context), ciphertext);
  });
});

describe("KmsTokenCipher: busy KMS is StoreUnavailableError at the adapter's edge; other errors propagate unchanged", () => {
  test("a throttled KMS and KMSInternalException become StoreUnavailableError (retried by the state machine, a 503 in the API), with KMS's error as the cause", async () => {
    const busy: unknown[] = [
      new KMSServiceException({ name: "ThrottlingException", $fault: "client", message: "Rate exceeded", $metadata: {} }),
      new KMSInternalException({ message: "internal", $metadata: {} }),
    ];
    for (const error of busy) {
      const { client } = recordingClient(() => {
        throw error;
      });
      const cipher = new KmsTokenCipher({ client, keyId: KEY_ID });
      for (const call of [cipher.decrypt(randomBytes(32).toString("base64"), context), cipher.encrypt(TOKEN, context)]) {
        const failure = await call.then(
          () => expect.unreachable("KMS was busy"),
          (thrown: unknown) => thrown,
        );
        expect(failure).toBeInstanceOf(StoreUnavailableError);
        expect((failure as StoreUnavailableError).cause).toBe(error);
      }
    }
  });

  const errors: unknown[] = [new DisabledException({ message: "key is disabled", $metadata: {} }), new Error("socket hang up")];

  test("decrypt and encrypt rethrow the very error KMS gave when it is not busy", async () => {
    for (const error of errors) {
      const { client } = recordingClient(() => {
        throw error;
      });
      const cipher = new KmsTokenCipher({ client, keyId: KEY_ID });
      await expect(cipher.decrypt(randomBytes(32).toString("base64"), context)).rejects.toBe(error);
      await expect(cipher.encrypt(TOKEN, context)).rejects.toBe(error);
    }
  });
});
