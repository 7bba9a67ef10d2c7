import * as v from "valibot";

// Date, then optionally: T/space, time, fraction of any length, and Z or ±HH:MM / ±HHMM. [0-9], not \d: the source
// API's OpenAPI document publishes this pattern, and \d is any Unicode digit in some engines (core/portable-patterns.ts).
export const TIMESTAMP =
  /^([0-9]{4})-([0-9]{2})-([0-9]{2})(?:[Tt ]([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\.([0-9]+))?(?:([Zz])|([+-])([0-9]{2}):?([0-9]{2}))?)?$/;

const MS_PER_MINUTE = 60_000;
// The Gregorian calendar repeats every 400 years (146097 days exactly).
const MS_PER_400_YEARS = 146_097 * 86_400_000;

function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return isLeapYear(year) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

function utcMillis(year: number, month: number, day: number, hour: number, minute: number, second: number, ms: number) {
  // Date.UTC reads years 0-99 as 1900-1999; compute them 400 years later instead.
  const shift = year < 100 ? 400 : 0;
  return Date.UTC(year + shift, month - 1, day, hour, minute, second, ms) - (shift / 400) * MS_PER_400_YEARS;
}

/**
 * Reads one of the spec's timestamp forms into `toISOString()` form (UTC,
 * milliseconds). Anything else, including impossible dates, is null: a bad
 * timestamp never fails a record.
 */
export function parseTimestamp(value: unknown): string | null {
  if (typeof value !== "string") return null;
  // A page's timestamps are read several times (the schema, the watermark, the findings): each is parsed once.
  // Only texts of a timestamp's length are kept, so a source's long junk cannot fill the memory.
  if (value.length > PARSED_TEXT_MAX) return parseTimestampText(value);
  const known = PARSED.get(value);
  if (known !== undefined) return known;
  if (PARSED.size >= PARSED_KEPT) PARSED.clear();
  const parsed = parseTimestampText(value);
  PARSED.set(value, parsed);
  return parsed;
}

/** The last few thousand distinct texts parsed, with their result (a pure function's memo, bounded). */
const PARSED = new Map<string, string | null>();
const PARSED_KEPT = 4_096;
/** Longer than any timestamp the spec's forms give short of an absurd fraction ("2026-01-31T09:30:00.123456789+02:00" is 35). */
const PARSED_TEXT_MAX = 40;

function parseTimestampText(value: string): string | null {
  const match = TIMESTAMP.exec(value);
  if (!match) return null;
  // Read group by group (no intermediate arrays): every source timestamp of every page passes here.
  const year = Number(match[1]);
  const month = Number(match[2]);
  const day = Number(match[3]);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
  const hour = match[4] === undefined ? 0 : Number(match[4]);
  const minute = match[5] === undefined ? 0 : Number(match[5]);
  const second = match[6] === undefined ? 0 : Number(match[6]);
  const offsetHours = match[10] === undefined ? 0 : Number(match[10]);
  const offsetMinutes = match[11] === undefined ? 0 : Number(match[11]);
  if (hour > 23 || minute > 59 || second > 59 || offsetHours > 23 || offsetMinutes > 59) return null;

  // Digits beyond milliseconds are cut, never rounded (rounding could move the date).
  const millis = (match[7] ?? "").slice(0, 3).padEnd(3, "0");
  const offset = (match[9] === "-" ? -1 : 1) * (offsetHours * 60 + offsetMinutes);
  // Already UTC: the valid fields are toISOString's own digits (4-digit years included), so no Date is built.
  if (offset === 0) {
    const time = match[4] === undefined ? "00:00:00" : `${match[4]}:${match[5]}:${match[6]}`;
    return `${match[1]}-${match[2]}-${match[3]}T${time}.${millis}Z`;
  }
  return new Date(utcMillis(year, month, day, hour, minute, second, Number(millis)) - offset * MS_PER_MINUTE).toISOString();
}

/** A timestamp field: optional, nullable, and null when unparseable. */
export const timestamp = v.pipe(v.optional(v.unknown(), null), v.transform(parseTimestamp));
