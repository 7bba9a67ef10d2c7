import * as v from "valibot";
import { parseFields } from "../onboarding/connection-input";
import { InvalidFieldError } from "../onboarding/onboarding-errors";
import { addDays, dayOf, dayStart, daysBetween } from "./utc-days";

/** A period is this many UTC days, ending today, when the request names none. */
export const DEFAULT_PERIOD_DAYS = 30;
/** Longest period: a year, a leap year's included; it bounds the months a request reads. */
export const MAX_PERIOD_DAYS = 366;
/** Periods are whole days of this time zone (docs/analytics-api.md). */
export const PERIOD_TIME_ZONE = "UTC";

const DATE_RULE = "must be a date, YYYY-MM-DD";

/** Whole UTC days, both included. */
export interface Period {
  readonly from: string;
  readonly to: string;
}

const isDay = (text: string): boolean => /^\d{4}-\d{2}-\d{2}$/.test(text) && dayOf(dayStart(text)) === text;
const day = v.optional(v.pipe(v.string(DATE_RULE), v.check(isDay, DATE_RULE)));

/**
 * `from` and `to` of a query string: ISO dates, both included, UTC days. `to`
 * defaults to today, `from` to DEFAULT_PERIOD_DAYS - 1 days before `to`.
 * InvalidFieldError for a date that is not one, `from` after `to`, or a period
 * longer than MAX_PERIOD_DAYS.
 */
export function parsePeriod(query: Readonly<Record<string, string | undefined>>, now: Date): Period {
  const { from, to } = parseFields(v.object({ from: day, to: day }), { from: query["from"], to: query["to"] });
  const end = to ?? dayOf(now.getTime()) ?? "1970-01-01";
  const start = from ?? addDays(end, -(DEFAULT_PERIOD_DAYS - 1));
  if (start > end) throw new InvalidFieldError("from", "must not be after to");
  if (daysBetween(start, end) + 1 > MAX_PERIOD_DAYS) throw new InvalidFieldError("from", `must leave a period of at most ${MAX_PERIOD_DAYS} days up to to, both included`);
  return { from: start, to: end };
}
