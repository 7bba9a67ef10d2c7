import { createHash } from "node:crypto";

/**
 * A loss reason's id is derived from its text, so identical text always maps
 * to the same record with no read before the write, and replays are harmless.
 */
export function lossReasonId(text: string): string {
  return `lr_${createHash("sha256").update(text, "utf8").digest("hex").slice(0, 32)}`;
}
