import * as v from "valibot";

/** Days without a task, call or event after which an open lead is idle, when the connection sets none. */
export const DEFAULT_IDLE_DAYS = 14;
/** The longest idle threshold a connection may set (the refresh reads events of this many days, and two more). */
export const MAX_IDLE_DAYS = 365;

const IDLE_RULE = `must be an integer from 1 to ${MAX_IDLE_DAYS}`;
/** A connection's idle threshold, in whole days: the coaching signal coaching.idle-leads (docs/analytics-api.md). */
export const IdleDaysSchema = v.pipe(v.number(IDLE_RULE), v.integer(IDLE_RULE), v.minValue(1, IDLE_RULE), v.maxValue(MAX_IDLE_DAYS, IDLE_RULE));
