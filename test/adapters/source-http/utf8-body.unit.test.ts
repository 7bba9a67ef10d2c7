import { describe, expect, test } from "vitest";
import { SourceHardError } from "../../../lambdas/domain/core/errors";
import { decodeUtf8Body, firstInvalidUtf8 } from "../../../lambdas/adapters/source-http/utf8-body";
import { rejectedWith } from "../../support/rejected-with";

const bytes = (...parts: (string | number[])[]) => Buffer.concat(parts.map((part) => (typeof part === "string" ? Buffer.from(part, "utf8") : Buffer.from(part))));

describe("envelope.utf8: a body is read as UTF-8 or refused, never repaired", () => {
  test("envelope.utf8: valid UTF-8 (ASCII, 2-, 3- and 4-byte characters) decodes exactly", () => {
    expect(decodeUtf8Body(bytes('{"id":"déjà 😀 ✓"}'))).toBe('{"id":"déjà 😀 ✓"}');
    expect(firstInvalidUtf8(bytes("déjà 😀"))).toBe(Buffer.byteLength("déjà 😀"));
  });

  test.each([
    ["a byte no character starts with", [0xff], 0],
    ["a lone continuation byte", [0x80], 0],
    ["an overlong form of '/'", [0xc0, 0xaf], 0],
    ["an overlong 3-byte form", [0xe0, 0x80, 0xaf], 0],
    ["an encoded surrogate (U+D800)", [0xed, 0xa0, 0x80], 0],
    ["a code point above U+10FFFF", [0xf4, 0x90, 0x80, 0x80], 0],
    ["a sequence cut short by ASCII", [0xe2, 0x82, 0x41], 0],
    ["a sequence cut short by the end", [0xf0, 0x9f, 0x98], 0],
  ])("envelope.utf8: %s is found where its sequence starts", (_name, bad, at) => {
    expect(firstInvalidUtf8(bytes('{"id":"a', bad, '"}'))).toBe(8 + at);
  });

  test("envelope.utf8: the refusal names the byte, its offset and the text before it", async () => {
    const error = await rejectedWith(Promise.resolve().then(() => decodeUtf8Body(bytes('{"data":[{"id":"a', [0xff], '"}]}'))), SourceHardError);
    expect(error.detail).toBe('response body is not UTF-8: byte 0xFF at offset 17, after "{\\"data\\":[{\\"id\\":\\"a"; send JSON encoded as UTF-8');
    expect(error.retryable).toBe(false);
  });
});
