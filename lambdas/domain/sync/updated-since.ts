import { WATERMARK_SAFETY_MARGIN_SECONDS } from "../core/limits";

/**
 * The updated_since of an incremental entity: sync_since on its first run,
 * later its watermark minus the safety margin. Always the spec's form,
 * `YYYY-MM-DDTHH:MM:SS+00:00`: whole seconds (flooring only re-sends a few
 * records), a four-digit year from 0001 to 9999. A value that cannot be
 * written so (a watermark from a record dated year 0000 or 0001, less the
 * margin; anything unparseable) falls back to sync_since: a strict source
 * would refuse it on every run.
 */
export function updatedSince(watermark: string | null, syncSince: string): string {
  const from = watermark === null ? null : specForm(Date.parse(watermark) - WATERMARK_SAFETY_MARGIN_SECONDS * 1000);
  return from ?? specForm(Date.parse(syncSince)) ?? FIRST_WRITABLE;
}

/** The earliest instant the spec's form can write. */
const FIRST_WRITABLE = "0001-01-01T00:00:00+00:00";

function specForm(ms: number): string | null {
  if (!Number.isFinite(ms)) return null;
  const iso = new Date(Math.floor(ms / 1000) * 1000).toISOString();
  // toISOString writes years 0000-9999 as four digits and others as ±YYYYYY; year 0000 is before the spec's year 1.
  return /^\d{4}-/.test(iso) && !iso.startsWith("0000-") ? `${iso.slice(0, 19)}+00:00` : null;
}
