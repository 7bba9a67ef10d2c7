import * as v from "valibot";
import { IsoTimeSchema } from "./iso-time-schema";
import { MAX_RATE_LIMIT } from "./limits";
import { FreshnessHoursSchema } from "./freshness";
import { IdleDaysSchema } from "./idle-days";
import { StageEventTypeSchema } from "./stage-event-type";

/*
 * The connection's shapes, one schema each: the TypeScript types come from
 * them, the onboarding API's OpenAPI document is generated from them, and the
 * connection store parses every item it reads with them.
 */


/** Longest connection name, in characters (JavaScript string length, after trimming). */
export const MAX_CONNECTION_NAME_LENGTH = 100;
/** What the owner calls a connection, shown in place of its URL; trimmed, never empty. */
export const ConnectionNameSchema = v.pipe(v.string(), v.minLength(1), v.maxLength(MAX_CONNECTION_NAME_LENGTH));

/** A connection as the onboarding API returns it: never the token. */
export const ConnectionSchema = v.object({
  id: v.string(),
  business_account_id: v.string(),
  crm_type: v.literal("custom"),
  base_url: v.pipe(v.string(), v.metadata({ format: "uri" }), v.description("Absolute http(s) URL of the source API root; trailing slash stripped")),
  /** Requests per second. */
  rate_limit: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(MAX_RATE_LIMIT)),
  /** Where the first sync of each incremental entity starts. */
  sync_since: IsoTimeSchema,
  created_at: IsoTimeSchema,
  updated_at: IsoTimeSchema,
});
export type Connection = v.InferOutput<typeof ConnectionSchema>;

/** What is stored: the connection plus its encrypted source token. */
export const StoredConnectionSchema = v.object({
  ...ConnectionSchema.entries,
  /** The owner's name for it; absent: none (the API returns null). */
  name: v.optional(ConnectionNameSchema),
  /** Base64 ciphertext from the TokenCipher, bound to (business_account_id, id). */
  token_ciphertext: v.string(),
  /** True while the owner has paused the schedule: the dispatcher skips it; a manual sync still runs. Absent = false. */
  paused: v.optional(v.boolean()),
  /** Hours after which a required entity's data is stale; absent: twice the schedule interval. */
  freshness_hours: v.optional(FreshnessHoursSchema),
  /** How often the schedule audits it (core/audit-schedule.ts); absent = the default, weekly. */
  audit_schedule: v.optional(v.string()),
  /** Days after which an open lead with no task, call or event is idle (a coaching signal); absent: DEFAULT_IDLE_DAYS. */
  idle_days: v.optional(IdleDaysSchema),
  /** The /events type that records stage moves (./stage-event-type.ts); absent: the default detection. */
  stage_event_type: v.optional(StageEventTypeSchema),
});
export type StoredConnection = v.InferOutput<typeof StoredConnectionSchema>;
