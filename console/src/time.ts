import { h } from "./dom";
import { LOCAL_TIME_FORMAT } from "./local-time-format";

/*
 * Every time the console shows goes through here: the owner's local time (the browser's time zone and language), with
 * the exact UTC instant on hover (the title) and for machines (datetime). Durations and the UTC start day too.
 */


/** Made per call: the zone is read then, not frozen at load (it can change under a running page). */
const localFormat = () => new Intl.DateTimeFormat(undefined, LOCAL_TIME_FORMAT);

function parsed(iso: string | null | undefined): Date | null {
  if (!iso) return null;
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? null : date;
}

/** The UTC instant as the hover shows it: `2026-02-03 08:59:00 UTC`. */
export function utcText(iso: string | null | undefined): string {
  const date = parsed(iso);
  return date === null ? (iso ?? "—") : date.toISOString().replace("T", " ").replace(/\.\d+Z$/, " UTC");
}

/** The owner's local time as text (for a sentence or an accessible name); "—" when there is none. */
export function when(iso: string | null | undefined): string {
  const date = parsed(iso);
  return date === null ? (iso ?? "—") : localFormat().format(date);
}

/** A `<time>`: local time shown, UTC on hover, the ISO instant in datetime. Use it wherever a time is on screen. */
export function timeOf(iso: string | null | undefined): HTMLTimeElement | string {
  const date = parsed(iso);
  if (date === null) return iso ?? "—";
  return h("time", { datetime: date.toISOString(), title: utcText(iso) }, localFormat().format(date));
}

/** A day the API keeps as a UTC midnight (the start date): shown as that UTC day, which is what the owner chose. */
export function utcDay(iso: string | null | undefined): string {
  const date = parsed(iso);
  return date === null ? (iso ?? "—") : `${date.toISOString().slice(0, 10)} (UTC)`;
}

export function duration(startIso: string, endIso: string | null): string {
  if (!endIso) return "—";
  const ms = Date.parse(endIso) - Date.parse(startIso);
  if (!Number.isFinite(ms) || ms < 0) return "—";
  if (ms < 1000) return `${ms} ms`;
  const seconds = Math.round(ms / 1000);
  return seconds < 60 ? `${seconds} s` : `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
}
