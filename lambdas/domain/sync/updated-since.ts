import { WATERMARK_SAFETY_MARGIN_SECONDS } from "../core/limits";

/**
 * The updated_since of an incremental entity: sync_since on its first run,
 * later its watermark minus the safety margin. Whole seconds with an explicit
 * +00:00 offset, the spec's form; flooring only re-sends a few records.
 */
export function updatedSince(watermark: string | null, syncSince: string): string {
  const from = watermark === null ? Date.parse(syncSince) : Date.parse(watermark) - WATERMARK_SAFETY_MARGIN_SECONDS * 1000;
  return `${new Date(Math.floor(from / 1000) * 1000).toISOString().slice(0, 19)}+00:00`;
}
