import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { link, mkdir, readFile, unlink, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { TokenDecryptionError } from "../../domain/core/errors";
import type { TokenCipher, TokenContext } from "../../domain/core/ports/token-cipher";

/**
 * The local twin of the KMS TokenCipher: AES-256-GCM under a key file.
 *
 * Ciphertext = base64 of the envelope
 *
 *   version (1 byte, 0x01) | IV (12 random bytes) | GCM tag (16 bytes) | AES-256-GCM ciphertext
 *
 * The TokenContext is the additional authenticated data, as canonical JSON
 * (`{"businessAccountId":...,"connectionId":...}`, keys in that fixed order),
 * like KMS's encryption context: a ciphertext copied to another connection or
 * workspace, or altered in any byte, fails to decrypt with TokenDecryptionError.
 */

export const KEY_BYTES = 32;
const ENVELOPE_VERSION = 0x01;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const HEADER_BYTES = 1 + IV_BYTES + TAG_BYTES;
const ALGORITHM = "aes-256-gcm";
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** The additional authenticated data of a context: canonical JSON, fixed key order. */
export function tokenContextAad(context: TokenContext): Buffer {
  return Buffer.from(
    JSON.stringify({ businessAccountId: context.businessAccountId, connectionId: context.connectionId }),
    "utf8",
  );
}

export class AesGcmTokenCipher implements TokenCipher {
  private readonly key: Buffer;

  constructor(key: Buffer) {
    if (key.length !== KEY_BYTES) throw new RangeError(`AES-256-GCM needs a ${KEY_BYTES}-byte key; got ${key.length} bytes`);
    this.key = Buffer.from(key); // a copy: the caller's buffer may be reused
  }

  async encrypt(plaintext: string, context: TokenContext): Promise<string> {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv(ALGORITHM, this.key, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(tokenContextAad(context));
    const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
    return Buffer.concat([Buffer.of(ENVELOPE_VERSION), iv, cipher.getAuthTag(), body]).toString("base64");
  }

  async decrypt(ciphertext: string, context: TokenContext): Promise<string> {
    if (!BASE64.test(ciphertext)) throw new TokenDecryptionError("token ciphertext is not base64");
    const envelope = Buffer.from(ciphertext, "base64");
    if (envelope.length < HEADER_BYTES) throw new TokenDecryptionError("token ciphertext is too short");
    if (envelope[0] !== ENVELOPE_VERSION) throw new TokenDecryptionError("token ciphertext has an unknown envelope version");
    const iv = envelope.subarray(1, 1 + IV_BYTES);
    const tag = envelope.subarray(1 + IV_BYTES, HEADER_BYTES);
    const body = envelope.subarray(HEADER_BYTES);
    try {
      const decipher = createDecipheriv(ALGORITHM, this.key, iv, { authTagLength: TAG_BYTES });
      decipher.setAAD(tokenContextAad(context));
      decipher.setAuthTag(tag);
      return Buffer.concat([decipher.update(body), decipher.final()]).toString("utf8");
    } catch {
      // No cause attached: the crypto error adds nothing and must not travel into logs.
      throw new TokenDecryptionError(
        "token ciphertext does not decrypt under this key and context (altered, or copied from another connection or workspace)",
      );
    }
  }
}

/**
 * Reads the 32-byte key at `path`, or creates it (random, mode 0600, parent
 * directories made) when the file does not exist. An existing file of another
 * size is refused, never overwritten. Creation is atomic: the key is written
 * to a temporary file and hard-linked into place, so a crash never leaves a
 * short key file, and of two processes creating at once both end up reading
 * the one that won.
 */
export async function loadOrCreateKeyFile(path: string): Promise<Buffer> {
  const existing = await readKeyFile(path);
  if (existing !== null) return existing;

  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const temporary = `${path}.${randomBytes(8).toString("hex")}.tmp`;
  const key = randomBytes(KEY_BYTES);
  await writeFile(temporary, key, { mode: 0o600, flag: "wx" });
  try {
    await link(temporary, path);
    return key;
  } catch (error) {
    if (errorCode(error) !== "EEXIST") throw error;
    const winner = await readKeyFile(path);
    if (winner === null) throw new Error(`key file ${path} vanished while being created`);
    return winner;
  } finally {
    await unlink(temporary).catch(() => undefined);
  }
}

async function readKeyFile(path: string): Promise<Buffer | null> {
  let content: Buffer;
  try {
    content = await readFile(path);
  } catch (error) {
    if (errorCode(error) === "ENOENT") return null;
    throw error;
  }
  if (content.length !== KEY_BYTES) {
    throw new Error(
      `key file ${path} holds ${content.length} bytes, not ${KEY_BYTES}: not an AES-256 key file; move it away or point to another path`,
    );
  }
  return content;
}

function errorCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | null)?.code;
}
