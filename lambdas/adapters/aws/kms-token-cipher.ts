import {
  DecryptCommand,
  EncryptCommand,
  IncorrectKeyException,
  InvalidCiphertextException,
  type KMSClient,
} from "@aws-sdk/client-kms";
import { TokenDecryptionError } from "../../domain/core/errors";
import type { TokenCipher, TokenContext } from "../../domain/core/ports/token-cipher";
import { atStoreEdge } from "./aws-busy-errors";

/**
 * TokenCipher on AWS KMS (symmetric key, direct Encrypt/Decrypt: a source
 * token is far under KMS's 4096-byte plaintext limit).
 *
 * Ciphertext = base64 of KMS's CiphertextBlob. The TokenContext is the KMS
 * encryption context `{ business_account_id, connection_id }`: KMS binds it
 * to the ciphertext, so a ciphertext copied to another connection or
 * workspace fails to decrypt with TokenDecryptionError, exactly like the
 * local AES-256-GCM twin. The same keys can be required by IAM conditions
 * (`kms:EncryptionContext:business_account_id`, `kms:EncryptionContextKeys`):
 * use ENCRYPTION_CONTEXT_KEYS / kmsEncryptionContext, never retyped strings.
 *
 * Decrypt names the KeyId as well, so a ciphertext of another KMS key is
 * refused (IncorrectKeyException) rather than decrypted under it. KMS's other
 * errors (throttling, disabled key, access denied, validation of an empty or
 * over-long plaintext) propagate unchanged; the caller decides on retries.
 */

/** The encryption context's key names, per TokenContext field. */
export const ENCRYPTION_CONTEXT_KEYS = Object.freeze({
  businessAccountId: "business_account_id",
  connectionId: "connection_id",
} as const satisfies Record<keyof TokenContext, string>);

export type EncryptionContextKey = (typeof ENCRYPTION_CONTEXT_KEYS)[keyof typeof ENCRYPTION_CONTEXT_KEYS];

/** The KMS encryption context of a token: both keys, always. */
export function kmsEncryptionContext(context: TokenContext): Record<EncryptionContextKey, string> {
  return {
    [ENCRYPTION_CONTEXT_KEYS.businessAccountId]: context.businessAccountId,
    [ENCRYPTION_CONTEXT_KEYS.connectionId]: context.connectionId,
  };
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

export class KmsTokenCipher implements TokenCipher {
  /** Busy KMS errors (throttled, KMSInternalException) become StoreUnavailableError here, at the adapter's edge. */
  private readonly client: Pick<KMSClient, "send">;
  private readonly keyId: string;

  constructor(options: { readonly client: KMSClient; readonly keyId: string }) {
    this.client = atStoreEdge(options.client);
    this.keyId = options.keyId;
  }

  async encrypt(plaintext: string, context: TokenContext): Promise<string> {
    const out = await this.client.send(
      new EncryptCommand({
        KeyId: this.keyId,
        Plaintext: Buffer.from(plaintext, "utf8"),
        EncryptionContext: kmsEncryptionContext(context),
      }),
    );
    if (out.CiphertextBlob === undefined) throw new Error("KMS Encrypt returned no CiphertextBlob");
    return Buffer.from(out.CiphertextBlob).toString("base64");
  }

  async decrypt(ciphertext: string, context: TokenContext): Promise<string> {
    // Buffer.from(_, "base64") skips what is not base64; a stored value that is not base64 is corrupt.
    if (ciphertext.length === 0 || !BASE64.test(ciphertext)) throw new TokenDecryptionError("token ciphertext is not base64");
    let plaintext: Uint8Array | undefined;
    try {
      const out = await this.client.send(
        new DecryptCommand({
          CiphertextBlob: Buffer.from(ciphertext, "base64"),
          KeyId: this.keyId,
          EncryptionContext: kmsEncryptionContext(context),
        }),
      );
      plaintext = out.Plaintext;
    } catch (error) {
      // KMS's answers for a ciphertext that does not match the key or the encryption context.
      if (!(error instanceof InvalidCiphertextException || error instanceof IncorrectKeyException)) throw error;
      // No cause attached: KMS's error adds nothing and must not travel into logs.
      throw new TokenDecryptionError(
        `token ciphertext does not decrypt under this key and context (altered, or copied from another connection or workspace; KMS ${error.name})`,
      );
    }
    if (plaintext === undefined) throw new Error("KMS Decrypt returned no Plaintext");
    return Buffer.from(plaintext).toString("utf8");
  }
}
