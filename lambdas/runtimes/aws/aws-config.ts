import * as v from "valibot";

/**
 * Configuration of the Lambdas, parsed once per process from the environment
 * that CDK sets (lib/). A missing value fails the cold start with a message
 * naming it, instead of failing a request later.
 */
const required = (name: string) => v.pipe(v.optional(v.string(`${name} must be a string`), ""), v.nonEmpty(`${name} is required`));

const flag = (name: string, absent: "true" | "false" = "false") =>
  v.pipe(
    v.optional(v.picklist(["true", "false"], `${name} must be true or false`), absent),
    v.transform((text) => text === "true"),
  );

export const SyncTaskConfigSchema = v.object({
  TABLE_NAME: required("TABLE_NAME"),
  KMS_KEY_ID: required("KMS_KEY_ID"),
  ALLOW_LOOPBACK_SOURCES: flag("ALLOW_LOOPBACK_SOURCES"),
  /** Fetch ahead, commit in order (docs/throughput.md#fetch-ahead): on unless "false"; the stack sets nothing (lib/sync-functions.ts). */
  FETCH_AHEAD: flag("FETCH_AHEAD", "true"),
  /** The deploy's syncSchedule as given (`1h`, `rate(2 hours)`, `off`): its interval sets the default freshness_hours; absent: none. */
  SYNC_SCHEDULE: v.optional(v.pipe(v.string(), v.trim(), v.nonEmpty())),
  /** The ManagerRefresh function (its alias ARN): FinishRun invokes it asynchronously at each run's end; absent elsewhere. */
  MANAGER_REFRESH_FUNCTION_NAME: v.optional(v.pipe(v.string(), v.nonEmpty())),
});

export const StarterConfigSchema = v.object({
  TABLE_NAME: required("TABLE_NAME"),
  STATE_MACHINE_ARN: required("STATE_MACHINE_ARN"),
  /** As the sync tasks': the tick checks paused connections' freshness against twice its interval by default. */
  SYNC_SCHEDULE: SyncTaskConfigSchema.entries.SYNC_SCHEDULE,
});

export const ApiConfigSchema = v.object({
  ...SyncTaskConfigSchema.entries,
  STATE_MACHINE_ARN: required("STATE_MACHINE_ARN"),
  /** The preflight worker (its alias ARN): POST .../preflight invokes it asynchronously. */
  PREFLIGHT_FUNCTION_NAME: required("PREFLIGHT_FUNCTION_NAME"),
});

/** The webhooks' deliveries: the table, the key the secrets are kept under, and the SSRF setting (as the sources'). */
export const WebhookDeliveryConfigSchema = v.object({
  TABLE_NAME: required("TABLE_NAME"),
  KMS_KEY_ID: required("KMS_KEY_ID"),
  ALLOW_LOOPBACK_SOURCES: flag("ALLOW_LOOPBACK_SOURCES"),
});

/** The preflight worker: what the page task has (table, key, SSRF setting). */
export const PreflightWorkerConfigSchema = SyncTaskConfigSchema;

/** The per-manager aggregates' refresh reads and writes the table only. */
export const ManagerRefreshConfigSchema = v.object({
  TABLE_NAME: required("TABLE_NAME"),
});

/** The purge of deleted connections needs the table only: no key, no source. */
export const PurgeConfigSchema = v.object({
  TABLE_NAME: required("TABLE_NAME"),
});

/** The preflight worker's on-failure destination: the table only (it ends a stored run; no key, no source). */
export const PreflightFailedConfigSchema = PurgeConfigSchema;

export type SyncTaskConfig = v.InferOutput<typeof SyncTaskConfigSchema>;
export type StarterConfig = v.InferOutput<typeof StarterConfigSchema>;
export type ApiConfig = v.InferOutput<typeof ApiConfigSchema>;

export class ConfigurationError extends Error {
  override readonly name = "ConfigurationError";
}

export function readConfig<S extends v.GenericSchema>(schema: S, env: Record<string, string | undefined> = process.env): v.InferOutput<S> {
  const result = v.safeParse(schema, env);
  if (result.success) return result.output;
  throw new ConfigurationError(`invalid Lambda configuration: ${result.issues.map((issue) => issue.message).join("; ")}`);
}
