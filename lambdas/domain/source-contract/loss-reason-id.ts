import { createHash } from "node:crypto";
import { isWellFormedText } from "../core/characters";

/**
 * A loss reason's id is derived from its text, so identical text always maps
 * to the same record with no read before the write, and replays are harmless.
 * Text with a lone surrogate (which UTF-8 would turn into U+FFFD, merging
 * texts that differ there) is hashed from its UTF-16 code units after a 0xFF
 * byte, which no UTF-8 text contains: distinct texts keep distinct ids, and
 * every valid text keeps the id it always had.
 */
export function lossReasonId(text: string): string {
  const hash = createHash("sha256");
  if (isWellFormedText(text)) hash.update(text, "utf8");
  else hash.update(Buffer.concat([Buffer.from([0xff]), Buffer.from(text, "utf16le")]));
  return `lr_${hash.digest("hex").slice(0, 32)}`;
}
