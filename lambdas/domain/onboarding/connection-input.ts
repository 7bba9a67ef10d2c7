import * as v from "valibot";
import { parseTimestamp } from "../records/fields/timestamp";
import { MAX_RATE_LIMIT } from "../core/limits";
import { MAX_FRESHNESS_HOURS } from "../core/freshness";
import { InvalidFieldError, MalformedBodyError } from "./onboarding-errors";
import { AuditScheduleSchema } from "../core/audit-schedule";
import { MAX_CONNECTION_NAME_LENGTH } from "../core/connection";
import { LINE_OF_TEXT } from "../core/portable-patterns";
import { IdleDaysSchema } from "../core/idle-days";
import { StageEventTypeSchema } from "../core/stage-event-type";

export { MAX_RATE_LIMIT };
/** Longest accepted source token; anything longer is not a Bearer token anyone issues. */
export const MAX_TOKEN_LENGTH = 4096;
/**
 * Longest accepted base_url, in characters as sent: the common limit of
 * browsers, CDNs and proxies for a whole URL, and far below DynamoDB's item size.
 */
export const MAX_BASE_URL_LENGTH = 2048;

const RATE_RULE = `must be an integer from 1 to ${MAX_RATE_LIMIT}`;
const TIMESTAMP_RULE = "must be an ISO-8601 timestamp, e.g. 2026-01-01T00:00:00Z";

const baseUrl = v.pipe(
  v.string("must be a string"),
  v.trim(),
  v.nonEmpty("must not be empty"),
  v.maxLength(MAX_BASE_URL_LENGTH, `must be at most ${MAX_BASE_URL_LENGTH} characters`),
);
// Sent as `Authorization: Bearer <token>`: printable ASCII only, or the header cannot carry it.
const token = v.pipe(
  v.string("must be a string"),
  v.nonEmpty("must not be empty"),
  v.maxLength(MAX_TOKEN_LENGTH, `must be at most ${MAX_TOKEN_LENGTH} characters`),
  v.regex(/^[\x21-\x7e]+$/, "must be printable ASCII without spaces"),
);
const rateLimit = v.pipe(
  v.number(RATE_RULE),
  v.integer(RATE_RULE),
  v.minValue(1, RATE_RULE),
  v.maxValue(MAX_RATE_LIMIT, RATE_RULE),
);
/** Normalised to `toISOString()` (UTC). */
const syncSince = v.pipe(
  v.string(TIMESTAMP_RULE),
  v.transform((text: string) => parseTimestamp(text)),
  v.string(TIMESTAMP_RULE),
);

const FRESHNESS_RULE = `must be an integer from 1 to ${MAX_FRESHNESS_HOURS}`;
const freshnessHours = v.pipe(
  v.number(FRESHNESS_RULE),
  v.integer(FRESHNESS_RULE),
  v.minValue(1, FRESHNESS_RULE),
  v.maxValue(MAX_FRESHNESS_HOURS, FRESHNESS_RULE),
);

/**
 * The owner's name for the connection: a line of text, so no control character (a newline, a tab), and not blank;
 * trimmed. The pattern comes first, on the text as sent, so the published pattern refuses what the API refuses.
 */
const name = v.pipe(
  v.string("must be a string"),
  v.minLength(1, "must not be empty"),
  v.check((text) => text.trim() !== "", "must not be empty"),
  v.regex(LINE_OF_TEXT, "must not contain control characters"),
  v.trim(),
  v.maxLength(MAX_CONNECTION_NAME_LENGTH, `must be at most ${MAX_CONNECTION_NAME_LENGTH} characters`),
);

/** POST body. Unknown fields are ignored (v.object drops them). */
export const CreateConnectionSchema = v.object({
  name: v.optional(name),
  base_url: baseUrl,
  token,
  rate_limit: v.optional(rateLimit),
  sync_since: v.optional(syncSince),
  freshness_hours: v.optional(freshnessHours),
  trigger_sync: v.optional(v.boolean("must be a boolean")),
  audit_schedule: v.optional(AuditScheduleSchema),
  idle_days: v.optional(IdleDaysSchema),
  stage_event_type: v.optional(v.nullable(StageEventTypeSchema)),
});
export type CreateConnectionInput = v.InferInput<typeof CreateConnectionSchema>;
export type CreateConnectionOutput = v.InferOutput<typeof CreateConnectionSchema>;

/** PATCH body: any of the fields, at least one (freshness_hours: null goes back to the default; name: null removes it). */
export const UpdateConnectionSchema = v.pipe(
  v.object({
    name: v.optional(v.nullable(name)),
    base_url: v.optional(baseUrl),
    token: v.optional(token),
    rate_limit: v.optional(rateLimit),
    sync_since: v.optional(syncSince),
    freshness_hours: v.optional(v.nullable(freshnessHours)),
    audit_schedule: v.optional(AuditScheduleSchema),
    idle_days: v.optional(v.nullable(IdleDaysSchema)),
    stage_event_type: v.optional(v.nullable(StageEventTypeSchema)),
  }),
  v.check(
    (body) => Object.values(body).some((value) => value !== undefined),
    "must contain at least one of base_url, token, rate_limit, sync_since, freshness_hours, audit_schedule, name, idle_days, stage_event_type",
  ),
);
export type UpdateConnectionOutput = v.InferOutput<typeof UpdateConnectionSchema>;

/** The raw request body as JSON: a JSON object, or MalformedBodyError. */
export function parseJsonBody(body: string | undefined | null): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body ?? "");
  } catch {
    throw new MalformedBodyError("the request body must be valid JSON");
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw new MalformedBodyError("the request body must be a JSON object");
  }
  return parsed as Record<string, unknown>;
}

/** Validates a body; a broken rule becomes InvalidFieldError: the first as its field and rule, the first of each field in `problems`. */
export function parseFields<S extends v.GenericSchema>(schema: S, body: Record<string, unknown>): v.InferOutput<S> {
  const result = v.safeParse(schema, body, { abortPipeEarly: true });
  if (result.success) return result.output;
  const problems = new Map<string, string>();
  for (const issue of result.issues) {
    const field = issue.path?.map((item) => String(item.key)).join(".") || "(body)";
    // valibot reports a missing required key as "Invalid key: ..."; say it plainly.
    if (!problems.has(field)) problems.set(field, issue.input === undefined && issue.path?.length ? "is required" : issue.message);
  }
  const [[field, rule], ...others] = [...problems] as [[string, string], ...[string, string][]];
  throw new InvalidFieldError(field, rule, others.map(([other, otherRule]) => ({ field: other, rule: otherRule })));
}
