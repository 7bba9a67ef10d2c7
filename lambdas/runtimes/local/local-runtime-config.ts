import * as v from "valibot";
import { isLoopbackHttpUrl } from "./crash-gates";
import { DEFAULT_SCHEDULE, ScheduleSchema } from "../../domain/sync/schedule-interval";

/**
 * Every setting of the local runtime (`npm start`), read once from the
 * environment. The README's settings table lists the same names and defaults.
 */
const port = (name: string, fallback: string) =>
  v.pipe(
    v.optional(v.string(), fallback),
    v.regex(/^\d+$/, `${name} must be a port number`),
    v.transform(Number),
    v.maxValue(65535, `${name} must be a port number`),
  );

/** One process runs every run's page tasks and DynamoDB Local beside it: measured in docs/fleet-scale.md. */
export const DEFAULT_LOCAL_MAX_CONCURRENT_RUNS = 20;

export const LocalRuntimeConfigSchema = v.object({
  PORT: port("PORT", "3000"),
  HOST: v.optional(v.pipe(v.string(), v.nonEmpty("HOST must not be empty")), "127.0.0.1"),
  DATA_DIR: v.optional(v.pipe(v.string(), v.nonEmpty("DATA_DIR must not be empty")), "./.data"),
  SCHEDULE: v.optional(ScheduleSchema, DEFAULT_SCHEDULE),
  TIME_SCALE: v.pipe(
    v.optional(v.string(), "1"),
    v.regex(/^\d+(\.\d+)?$/, "TIME_SCALE must be a number >= 0, e.g. 0.01"),
    v.transform(Number),
  ),
  ALLOW_LOOPBACK_SOURCES: v.pipe(
    v.optional(v.picklist(["true", "false"], "ALLOW_LOOPBACK_SOURCES must be true or false"), "true"),
    v.transform((text) => text === "true"),
  ),
  /** 0 picks a free port. */
  DYNAMODB_PORT: port("DYNAMODB_PORT", "0"),
  /** Fetch ahead, commit in order (docs/throughput.md#fetch-ahead). */
  FETCH_AHEAD: v.pipe(
    v.optional(v.picklist(["true", "false"], "FETCH_AHEAD must be true or false"), "true"),
    v.transform((text) => text === "true"),
  ),
  /** Page tasks per execution before ContinueAsNew (tests lower it); the service's default when unset. */
  PAGE_TASKS_PER_EXECUTION: v.optional(
    v.pipe(v.string(), v.regex(/^[1-9]\d*$/, "PAGE_TASKS_PER_EXECUTION must be a whole number >= 1"), v.transform(Number)),
  ),
  /** The owner's console signs in at this OIDC issuer (authorization code + PKCE) instead of the dev sign-in; needs OIDC_CLIENT_ID. */
  OIDC_ISSUER: v.optional(v.pipe(v.string(), v.url("OIDC_ISSUER must be a URL (the identity provider's issuer)"))),
  /** The console's client id at OIDC_ISSUER: the `aud` the API accepts, as the JWT authorizer's jwtAudience. */
  OIDC_CLIENT_ID: v.optional(v.pipe(v.string(), v.nonEmpty("OIDC_CLIENT_ID must not be empty"))),
  /**
   * The cap on concurrent runs of a schedule tick (context maxConcurrentRuns in AWS): the rest of the tick's
   * connections wait in the dispatch Map instead of all starting at once (docs/fleet-scale.md).
   */
  MAX_CONCURRENT_RUNS: v.pipe(
    v.optional(v.string(), String(DEFAULT_LOCAL_MAX_CONCURRENT_RUNS)),
    v.regex(/^[1-9]\d*$/, "MAX_CONCURRENT_RUNS must be a whole number >= 1"),
    v.transform(Number),
  ),
  /** Test hook: a loopback URL of a crash-gate control server (docs/crash-consistency.md). Unset in normal use. */
  CRASH_GATES: v.optional(
    v.pipe(v.string(), v.check(isLoopbackHttpUrl, "CRASH_GATES must be an http URL on 127.0.0.1, [::1] or localhost")),
  ),
});
export type LocalRuntimeConfig = v.InferOutput<typeof LocalRuntimeConfigSchema>;

/** A setting the runtime cannot start with: the message is the one line the user sees. */
export class StartupError extends Error {
  override readonly name = "StartupError";
}

export function readLocalRuntimeConfig(env: Record<string, string | undefined> = process.env): LocalRuntimeConfig {
  const result = v.safeParse(LocalRuntimeConfigSchema, env);
  if (result.success) {
    if ((result.output.OIDC_ISSUER === undefined) !== (result.output.OIDC_CLIENT_ID === undefined)) {
      throw new StartupError("OIDC_ISSUER and OIDC_CLIENT_ID go together: set both or neither (see docs/console.md)");
    }
    return result.output;
  }
  throw new StartupError(`${result.issues[0].message} (see the settings table in README.md)`);
}
