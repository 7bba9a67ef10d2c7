import * as v from "valibot";
import { portableRegExp, WHITESPACE } from "./portable-patterns";

/**
 * How often the schedule tick audits a connection (docs/audits.md): `off`, or
 * every N days (`7d`). Stored on the connection as written; absent means the
 * default, weekly.
 */
export const DEFAULT_AUDIT_SCHEDULE = "7d";
export const MAX_AUDIT_EVERY_DAYS = 365;

const RULE = `must be \`off\` or a number of days from 1 to ${MAX_AUDIT_EVERY_DAYS} like 7d`;

/**
 * `off`, or 1d to 365d, in any case and with white space around, as sent; stored trimmed and in lower case. The
 * range is in the pattern itself (1-9, 10-99, 100-299, 300-359, 360-365), so the OpenAPI document, which publishes
 * it, refuses 366d as the API does.
 */
export const AUDIT_SCHEDULE_PATTERN = portableRegExp(
  `^[${WHITESPACE}]*([oO][fF][fF]|([1-9]|[1-9][0-9]|[12][0-9]{2}|3[0-5][0-9]|36[0-5])[dD])[${WHITESPACE}]*$`,
);

export const AuditScheduleSchema = v.pipe(
  v.string(RULE),
  v.regex(AUDIT_SCHEDULE_PATTERN, RULE),
  v.trim(),
  v.toLowerCase(),
  v.description("How often the schedule audits the connection: `off`, or every N days (`7d`, the default)"),
);

/** Days between scheduled audits; null when off. */
export function auditEveryDays(schedule: string | undefined): number | null {
  const text = schedule ?? DEFAULT_AUDIT_SCHEDULE;
  return text === "off" ? null : Number(text.slice(0, -1));
}

/**
 * A scheduled audit is due once N days have passed since the last audit
 * started, or, before the first one, since the connection was created.
 */
export function auditDue(everyDays: number | null, lastStartedAt: string | null, createdAt: string, now: Date): boolean {
  if (everyDays === null) return false;
  const since = Date.parse(lastStartedAt ?? createdAt);
  return Number.isFinite(since) && now.getTime() - since >= everyDays * 86_400_000;
}
