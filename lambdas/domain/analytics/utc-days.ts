/**
 * Days and months of the analytics, in UTC: a period is whole UTC days, and
 * every timestamp falls on the UTC day of its instant (docs/analytics-api.md).
 */

export const DAY_MS = 86_400_000;

/** `YYYY-MM-DD` (UTC) of an instant; null when it has no such form (not a time, or a year outside 0000 to 9999). */
export function dayOf(ms: number): string | null {
  if (!Number.isFinite(ms)) return null;
  const iso = new Date(ms).toISOString();
  return /^\d{4}-/.test(iso) ? iso.slice(0, 10) : null;
}

/** The instant of a stored timestamp (ISO text), or NaN when it has none. */
export function instantOf(value: unknown): number {
  return typeof value === "string" && value !== "" ? Date.parse(value) : Number.NaN;
}

/** Midnight UTC of a `YYYY-MM-DD` day. */
export function dayStart(day: string): number {
  return Date.parse(`${day}T00:00:00.000Z`);
}

/** The day `days` after `day` (negative: before). */
export function addDays(day: string, days: number): string {
  return dayOf(dayStart(day) + days * DAY_MS) ?? day;
}

/** Whole days from one day to another (`to - from`). */
export function daysBetween(from: string, to: string): number {
  return Math.round((dayStart(to) - dayStart(from)) / DAY_MS);
}

/** `YYYY-MM` of a day. */
export const monthOfDay = (day: string): string => day.slice(0, 7);
