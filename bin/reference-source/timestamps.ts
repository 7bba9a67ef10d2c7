/**
 * Timestamps as the spec wants them on the wire: ISO-8601 date-time with an
 * explicit offset (`Z`, `+02:00`, `-05:00`), whole seconds. Offsets are mixed
 * on purpose: a consumer must compare instants, never strings.
 */

/** UTC, Central European summer time, US Eastern standard time. */
export const OFFSET_MINUTES = [0, 120, -300] as const;

const MS_PER_MINUTE = 60_000;

const pad = (value: number, width = 2): string => String(value).padStart(width, "0");

/** `epochMs` (floored to the second) written in the given offset: `2026-03-01T11:00:00+02:00`, or `...Z` for 0. */
export function formatTimestamp(epochMs: number, offsetMinutes: number): string {
  // Shift the instant by the offset, then read the shifted clock in UTC: that is the local wall time.
  const local = new Date(Math.floor(epochMs / 1000) * 1000 + offsetMinutes * MS_PER_MINUTE);
  const wall =
    `${pad(local.getUTCFullYear(), 4)}-${pad(local.getUTCMonth() + 1)}-${pad(local.getUTCDate())}` +
    `T${pad(local.getUTCHours())}:${pad(local.getUTCMinutes())}:${pad(local.getUTCSeconds())}`;
  if (offsetMinutes === 0) return `${wall}Z`;
  const sign = offsetMinutes > 0 ? "+" : "-";
  const abs = Math.abs(offsetMinutes);
  return `${wall}${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}

// Date, `T`, time, optional fraction, then `Z` or ±HH:MM. Nothing else: the zone must be explicit.
const WITH_OFFSET = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:(Z)|([+-])(\d{2}):(\d{2}))$/;

/**
 * The instant of an ISO-8601 date-time with an explicit offset, in epoch
 * milliseconds; null for anything else, including impossible dates such as
 * 2026-02-30 (which `Date.parse` would quietly roll into March).
 */
export function parseTimestamp(text: string): number | null {
  const match = WITH_OFFSET.exec(text);
  if (!match) return null;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const ms = Number((match[7] ?? "").slice(0, 3).padEnd(3, "0"));
  const offsetHours = Number(match[10] ?? 0);
  const offsetMinutes = Number(match[11] ?? 0);
  if (hour > 23 || minute > 59 || second > 59 || offsetHours > 23 || offsetMinutes > 59) return null;
  // setUTCFullYear, unlike Date.UTC, does not read years 0-99 as 1900-1999.
  const wall = new Date(0);
  wall.setUTCFullYear(year, month - 1, day);
  wall.setUTCHours(hour, minute, second, ms);
  // 30 February rolls over into March; a different day back means the date does not exist.
  if (wall.getUTCFullYear() !== year || wall.getUTCMonth() !== month - 1 || wall.getUTCDate() !== day) return null;
  const offset = (match[9] === "-" ? -1 : 1) * (offsetHours * 60 + offsetMinutes);
  return wall.getTime() - offset * MS_PER_MINUTE;
}
