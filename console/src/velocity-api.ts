/** GET .../analytics/velocity as the console reads it (the API's VelocitySchema is the source of truth). */
export interface StageVelocity {
  readonly stage_id: string;
  readonly entered: number;
  readonly to_next: number | null;
  readonly to_won: number;
  readonly conversion_to_next: number | null;
  readonly conversion_to_won: number | null;
  readonly median_seconds_in_stage: number | null;
  readonly p90_seconds_in_stage: number | null;
}

export interface WaitingLead {
  readonly lead_id: string;
  readonly stage_id: string;
  readonly since: string;
  readonly seconds: number;
}

export interface PipelineVelocity {
  readonly pipeline_id: string;
  /** One row per calendar month (UTC, `YYYY-MM`) in which a lead entered a stage, oldest first. */
  readonly periods: readonly { readonly period: string; readonly stages: readonly StageVelocity[] }[];
  readonly longest_waiting: readonly WaitingLead[];
}

export interface Velocity {
  readonly pipelines: readonly PipelineVelocity[];
  readonly computed_at: string;
}

const MINUTE = 60;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

const plural = (count: number, unit: string) => `${count} ${unit}${count === 1 ? "" : "s"}`;

/** A time in a stage in the unit a person thinks in: "3 days", "5 hours", "12 minutes"; "not enough data" when none has left the stage. */
export function timeInWords(seconds: number | null): string {
  if (seconds === null || !Number.isFinite(seconds) || seconds < 0) return "not enough data";
  if (seconds < MINUTE) return "under a minute";
  // Rounded in the unit first: 59.6 minutes reads "1 hour", 23.6 hours "1 day", never "60 minutes" or "24 hours".
  const minutes = Math.round(seconds / MINUTE);
  if (minutes < 60) return plural(minutes, "minute");
  const hours = Math.round(seconds / HOUR);
  if (hours < 24) return plural(hours, "hour");
  return plural(Math.round(seconds / DAY), "day");
}

/** "February 2026" for the period `2026-02` (a calendar month in UTC, named in English as the rest of the console). */
export function monthInWords(period: string): string {
  const [year, month] = period.split("-").map(Number);
  if (year === undefined || month === undefined || !Number.isInteger(year) || !Number.isInteger(month) || month < 1 || month > 12) return period;
  return new Date(Date.UTC(year, month - 1, 1)).toLocaleString("en-US", { month: "long", year: "numeric", timeZone: "UTC" });
}
