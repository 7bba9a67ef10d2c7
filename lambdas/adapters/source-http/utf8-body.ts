import { isUtf8 } from "node:buffer";
import { SourceHardError } from "../../domain/core/errors";
import { envelopeUtf8 } from "../../domain/source-contract/rules/envelope-rules";

/** Characters of the body quoted before a byte that is not UTF-8, so the source's developer can find it. */
const CONTEXT_CHARS = 40;
const utf8 = new TextDecoder();

/**
 * The body as text, or a SourceHardError when it is not UTF-8 (JSON's
 * encoding). A decoder that replaced the bad bytes with U+FFFD would store
 * text the source never sent and merge ids that differ only in those bytes.
 */
export function decodeUtf8Body(bytes: Uint8Array): string {
  if (isUtf8(bytes)) return utf8.decode(bytes);
  const offset = firstInvalidUtf8(bytes);
  const before = utf8.decode(bytes.subarray(Math.max(0, offset - 4 * CONTEXT_CHARS), offset)).slice(-CONTEXT_CHARS);
  const byte = (bytes[offset] ?? 0).toString(16).toUpperCase().padStart(2, "0");
  throw new SourceHardError(`response body is not UTF-8: byte 0x${byte} at offset ${offset}, after ${JSON.stringify(before)}; send JSON encoded as UTF-8`, {
    rule: envelopeUtf8.id,
  });
}

/** Offset of the first byte that does not start a well-formed UTF-8 sequence (RFC 3629). */
export function firstInvalidUtf8(bytes: Uint8Array): number {
  let index = 0;
  while (index < bytes.length) {
    const lead = bytes[index]!;
    const length = lead < 0x80 ? 1 : lead >= 0xc2 && lead <= 0xdf ? 2 : lead >= 0xe0 && lead <= 0xef ? 3 : lead >= 0xf0 && lead <= 0xf4 ? 4 : 0;
    if (length === 0) return index;
    // The second byte's range excludes overlong forms, surrogates (ED A0..BF) and code points above U+10FFFF.
    const [low, high] = lead === 0xe0 ? [0xa0, 0xbf] : lead === 0xed ? [0x80, 0x9f] : lead === 0xf0 ? [0x90, 0xbf] : lead === 0xf4 ? [0x80, 0x8f] : [0x80, 0xbf];
    for (let next = 1; next < length; next += 1) {
      const byte = bytes[index + next];
      const [min, max] = next === 1 ? [low, high] : [0x80, 0xbf];
      if (byte === undefined || byte < min || byte > max) return index;
    }
    index += length;
  }
  return bytes.length;
}
