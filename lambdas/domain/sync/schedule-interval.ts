import * as v from "valibot";

/**
 * The sync schedule's syntax, one for both runtimes: the local runtime's SCHEDULE
 * and the AWS stack's `syncSchedule` context (lib/deploy-config.ts) read it here.
 */

/** SCHEDULE: `off`, or an interval such as `30s`, `15m`, `1h`. The AWS schedule's default (see lib/) is the same 1h. */
export const DEFAULT_SCHEDULE = "1h";

const UNIT_MS = { s: 1_000, m: 60_000, h: 3_600_000 } as const;

/** `off` reads as null, an interval as its milliseconds. */
export const ScheduleSchema = v.pipe(
  v.string(),
  v.trim(),
  v.toLowerCase(),
  v.regex(/^(off|\d+[smh])$/, "SCHEDULE must be `off` or an interval like 30s, 15m, 1h"),
  v.transform((text) => (text === "off" ? null : Number(text.slice(0, -1)) * UNIT_MS[text.slice(-1) as keyof typeof UNIT_MS])),
  v.check((ms) => ms === null || ms >= 1_000, "SCHEDULE must be at least 1s"),
);

const RATE_UNIT_MS: Readonly<Record<string, number>> = { minute: 60_000, hour: 3_600_000, day: 86_400_000 };

/**
 * The interval of a schedule as the owner reads it (the API's SYNC_SCHEDULE):
 * `1h`, `15m`, or EventBridge's `rate(2 hours)`; null for `off`, a cron
 * expression or anything else (no fixed interval).
 */
export function scheduleIntervalMs(label: string | undefined): number | null {
  if (label === undefined) return null;
  const parsed = v.safeParse(ScheduleSchema, label);
  if (parsed.success) return parsed.output;
  const rate = /^rate\((\d+) (minute|hour|day)s?\)$/.exec(label.trim());
  return rate === null ? null : Number(rate[1]) * RATE_UNIT_MS[rate[2]!]!;
}
