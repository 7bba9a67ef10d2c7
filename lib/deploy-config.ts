import { Duration } from "aws-cdk-lib";
import { Schedule } from "aws-cdk-lib/aws-events";
import { RetentionDays } from "aws-cdk-lib/aws-logs";
import { resolve } from "node:path";
import type { Node } from "constructs";
import * as v from "valibot";
import { CONSOLE_DIST_DIR } from "../console/site";
import { DEFAULT_SCHEDULE, ScheduleSchema } from "../lambdas/domain/sync/schedule-interval";

/**
 * The deployment's knobs, read from CDK context (cdk.json, then `-c key=value`
 * on the command line, which wins). Every value has a default so that
 * `cdk synth` needs no AWS account; the JWT issuer and audience defaults are
 * placeholders that fail the synth (and so `cdk deploy`) until the real ones
 * are given (docs/operations.md, "Context values").
 */

/** Placeholder issuer: `.invalid` is reserved (RFC 2606), so it can never serve a JWKS. */
export const PLACEHOLDER_JWT_ISSUER = "https://example.invalid/";
export const PLACEHOLDER_JWT_AUDIENCE = "replace-with-the-identity-provider-client-id";

/** The defaults, as cdk.json carries them (a test keeps the two equal). */
export const CONTEXT_DEFAULTS = {
  jwtIssuer: PLACEHOLDER_JWT_ISSUER,
  jwtAudience: PLACEHOLDER_JWT_AUDIENCE,
  syncSchedule: DEFAULT_SCHEDULE,
  logRetentionDays: 30,
  pageTaskConcurrency: 200,
  maxConcurrentRuns: 200,
  apiConcurrency: 20,
  apiThrottleRate: 50,
  apiThrottleBurst: 100,
  noSuccessAlarmHours: 3,
  accountConcurrency: 1000,
} as const;

/**
 * Reserved concurrency the stack sets besides context's: the public OpenAPI route's function (a flood on the one
 * unauthenticated route takes at most this many) and the hourly purge (two at once would compete for the same deletes).
 */
export const FIXED_RESERVED_CONCURRENCY = { OpenApi: 5, Purge: 1 } as const;
/** The functions whose reserved concurrency is context apiConcurrency each. */
export const API_CONCURRENCY_FUNCTIONS = ["Api", "TestConnectionApi", "PreflightWorker"] as const;
/**
 * Lambda keeps this much of the account's concurrency unreserved, whatever the quota
 * (https://docs.aws.amazon.com/lambda/latest/dg/configuration-concurrency.html).
 */
export const UNRESERVED_CONCURRENCY = 100;

/** Every reservation of the stack, by function, and their sum: what the account's quota must hold with 100 to spare. */
export function reservedConcurrencyOf(config: { readonly pageTaskConcurrency: number; readonly apiConcurrency: number }): {
  readonly byFunction: Readonly<Record<string, number>>;
  readonly total: number;
} {
  const byFunction = {
    SyncPage: config.pageTaskConcurrency,
    ...Object.fromEntries(API_CONCURRENCY_FUNCTIONS.map((name) => [name, config.apiConcurrency])),
    ...FIXED_RESERVED_CONCURRENCY,
  };
  return { byFunction, total: Object.values(byFunction).reduce((sum, each) => sum + each, 0) };
}

export interface DeployConfig {
  /** OIDC issuer URL of the workspace identity provider (the `iss` claim, exactly). */
  readonly jwtIssuer: string;
  /** Accepted `aud` values (the IdP client id(s)); context gives them comma-separated. */
  readonly jwtAudience: readonly string[];
  /** EventBridge schedule of the dispatcher. */
  readonly syncSchedule: Schedule;
  /** False when syncSchedule is `off`: the rule is deployed disabled. */
  readonly syncScheduleEnabled: boolean;
  /** syncSchedule as the owner reads it on each connection (`1h`, `rate(2 hours)`, `off`): the API's SYNC_SCHEDULE. */
  readonly syncScheduleLabel: string;
  readonly logRetention: RetentionDays;
  /** Optional e-mail subscribed to the alarm topic. */
  readonly alarmEmail: string | undefined;
  /** Reserved concurrency of the page task (SyncPage): at most this many pages at once, and never starved by the rest. */
  readonly pageTaskConcurrency: number;
  /**
   * The cap on concurrent runs of a schedule tick: the dispatch Map's MaxConcurrency. The tick's other
   * connections wait in the Map until a run ends (docs/fleet-scale.md). At most pageTaskConcurrency.
   */
  readonly maxConcurrentRuns: number;
  /** Reserved concurrency of each authenticated API function (Api, TestConnectionApi, PreflightWorker). */
  readonly apiConcurrency: number;
  /** The account's Lambda concurrency quota in the deploy region (Service Quotas L-B99A9384): the reservations must leave 100 of it. */
  readonly accountConcurrency: number;
  /** API stage throttling: steady requests per second and burst, over all routes. */
  readonly apiThrottleRate: number;
  readonly apiThrottleBurst: number;
  /** The "no successful run" alarm fires when no execution succeeded for this many hours. */
  readonly noSuccessAlarmHours: number;
  /**
   * The OIDC client the console signs in as (its config.json): context consoleClientId, else jwtAudience's first. It
   * must be one of jwtAudience, since the page sends its ID token, whose `aud` is this client id.
   */
  readonly consoleClientId: string;
  /** Origins besides the issuer's that the page fetches at sign-in (a token endpoint elsewhere, as Cognito's): context consoleConnectOrigins. */
  readonly consoleConnectOrigins: readonly string[];
  /** The console build the stack deploys: context consoleBuildDir (relative to the working directory), else console/dist. */
  readonly consoleBuildDir: string;
  /**
   * The console's own domain and its ACM certificate (context consoleDomainName and consoleCertificateArn, both or
   * neither): the distribution then answers on that name with TLS 1.2 at least. Unset: CloudFront's default name.
   */
  readonly consoleDomain: ConsoleDomain | undefined;
  /** A WAF web ACL (CloudFront scope, in us-east-1) the distribution is attached to: context consoleWebAclArn. */
  readonly consoleWebAclArn: string | undefined;
  /**
   * Context keepLegacyNewestIndex (optional, false): keeps the table's old `records-newest` index (projection ALL)
   * beside the keys-only one, for the first of the two deploys that move a table created before it (DynamoDB creates
   * or deletes one index per table update: docs/operations.md).
   */
  readonly keepLegacyNewestIndex: boolean;
}

export interface ConsoleDomain {
  readonly domainName: string;
  readonly certificateArn: string;
}

export class DeployConfigError extends Error {
  override readonly name = "DeployConfigError";
}

const RETENTION_VALUES = new Set<number>(Object.values(RetentionDays).filter((value): value is number => typeof value === "number"));

const text = (key: string) => v.pipe(v.string(`context ${key} must be a string`), v.trim(), v.nonEmpty(`context ${key} must not be empty`));

const IssuerSchema = v.pipe(
  text("jwtIssuer"),
  v.url("context jwtIssuer must be a URL (the identity provider's OIDC issuer)"),
  v.startsWith("https://", "context jwtIssuer must be an https:// URL (API Gateway fetches its JWKS over HTTPS)"),
);

const AudienceSchema = v.pipe(
  text("jwtAudience"),
  v.transform((value) => value.split(",").map((part) => part.trim()).filter((part) => part.length > 0)),
  v.minLength(1, "context jwtAudience must name at least one client id"),
);

const RetentionSchema = v.pipe(
  v.union([v.number(), v.pipe(v.string(), v.trim(), v.regex(/^\d+$/), v.transform(Number))], "context logRetentionDays must be a number of days"),
  v.check(
    (days) => RETENTION_VALUES.has(days),
    `context logRetentionDays must be one of CloudWatch Logs' retention values: ${[...RETENTION_VALUES].sort((a, b) => a - b).join(", ")}`,
  ),
  v.transform((days) => days as RetentionDays),
);

/** A whole number from min to max; `-c key=value` gives a string, cdk.json a number. */
const wholeNumber = (key: string, min: number, max: number) =>
  v.pipe(
    v.union([v.number(), v.pipe(v.string(), v.trim(), v.regex(/^\d+$/), v.transform(Number))], `context ${key} must be a whole number`),
    v.integer(`context ${key} must be a whole number`),
    v.minValue(min, `context ${key} must be from ${min} to ${max}`),
    v.maxValue(max, `context ${key} must be from ${min} to ${max}`),
  );

/**
 * Reserved concurrency is taken from the account's concurrency quota (1,000 by default), and Lambda keeps 100 of it
 * unreserved: the ceilings below keep the stack's reservations deployable on a default account. 0 would stop the
 * function entirely, hence the minimum of 1.
 */
const PageTaskConcurrencySchema = wholeNumber("pageTaskConcurrency", 1, 800);
const ApiConcurrencySchema = wholeNumber("apiConcurrency", 1, 100);
/** A run has at most one page task in flight: more runs than page slots would wait as throttled retries, not in the Map. */
const MaxConcurrentRunsSchema = wholeNumber("maxConcurrentRuns", 1, 800);
/** Lambda's default is 1,000 (new accounts may start lower); below 100 nothing can be reserved at all. */
const AccountConcurrencySchema = wholeNumber("accountConcurrency", 100, 1_000_000);
const ApiThrottleRateSchema = wholeNumber("apiThrottleRate", 1, 10_000);
const ApiThrottleBurstSchema = wholeNumber("apiThrottleBurst", 1, 5_000);
/** Whole hours up to a day: CloudWatch evaluates at most 24 hours of one-hour periods in one alarm (86,400 s). */
const NoSuccessHoursSchema = wholeNumber("noSuccessAlarmHours", 1, 24);

const ClientIdSchema = v.optional(text("consoleClientId"));
const BuildDirSchema = v.optional(text("consoleBuildDir"));
/** Comma-separated https origins (scheme and host, no path): they go into the console's CSP connect-src as they are. */
const ConnectOriginsSchema = v.optional(
  v.pipe(
    text("consoleConnectOrigins"),
    v.transform((value) => value.split(",").map((part) => part.trim()).filter((part) => part.length > 0)),
    v.check(
      (origins) => origins.every((origin) => URL.canParse(origin) && origin.startsWith("https://") && new URL(origin).origin === origin),
      "context consoleConnectOrigins must be https origins (https://host[:port], no path), comma-separated",
    ),
  ),
);

/** A DNS name of two labels or more (RFC 1123 labels, lower or upper case), as CloudFront takes an alternate domain name. */
const DomainNameSchema = v.optional(
  v.pipe(
    text("consoleDomainName"),
    v.regex(/^(?=.{1,253}$)(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,63}$/, "context consoleDomainName must be a domain name, e.g. crm.example.com"),
  ),
);
/** CloudFront takes certificates from ACM in us-east-1 only, whatever the stack's region. */
const CertificateArnSchema = v.optional(
  v.pipe(
    text("consoleCertificateArn"),
    v.regex(/^arn:aws[a-z-]*:acm:us-east-1:\d{12}:certificate\/[A-Za-z0-9-]+$/, "context consoleCertificateArn must be an ACM certificate ARN in us-east-1 (CloudFront takes no other region)"),
  ),
);
/** A WAFv2 web ACL of CloudFront scope: created in us-east-1, its ARN under `global/webacl/`. */
const WebAclArnSchema = v.optional(
  v.pipe(
    text("consoleWebAclArn"),
    v.regex(
      /^arn:aws[a-z-]*:wafv2:us-east-1:\d{12}:global\/webacl\/[A-Za-z0-9_-]+\/[A-Za-z0-9-]+$/,
      "context consoleWebAclArn must be the ARN of a WAF web ACL of CloudFront scope (arn:aws:wafv2:us-east-1:<account>:global/webacl/<name>/<id>)",
    ),
  ),
);

const EmailSchema = v.optional(v.pipe(text("alarmEmail"), v.email("context alarmEmail must be an e-mail address")));

/**
 * `syncSchedule`: the local runtime's SCHEDULE syntax (`off`, `15m`, `1h`,
 * whole minutes: EventBridge's finest rate is one minute), or an EventBridge
 * expression as is (`rate(2 hours)`, `cron(0 * * * ? *)`).
 */
export function parseSyncSchedule(raw: unknown): { schedule: Schedule; enabled: boolean; label: string } {
  const value = parse(text("syncSchedule"), "syncSchedule", raw);
  return { ...scheduleOf(value), label: value.trim() };
}

function scheduleOf(value: string): { schedule: Schedule; enabled: boolean } {
  if (/^(rate|cron)\(.+\)$/.test(value)) return { schedule: Schedule.expression(value), enabled: true };
  const parsed = v.safeParse(ScheduleSchema, value);
  if (!parsed.success) {
    throw new DeployConfigError(`context syncSchedule must be off, an interval like 15m or 1h, or rate(...)/cron(...); got ${JSON.stringify(value)}`);
  }
  // `off` keeps the rule (disabled), so turning the schedule back on is a context change, not a new resource.
  if (parsed.output === null) return { schedule: Schedule.rate(Duration.hours(1)), enabled: false };
  const minutes = parsed.output / 60_000;
  if (!Number.isInteger(minutes)) {
    throw new DeployConfigError(`context syncSchedule must be whole minutes on EventBridge (at least 1m); got ${JSON.stringify(value)}`);
  }
  return { schedule: Schedule.rate(Duration.minutes(minutes)), enabled: true };
}

/** Context keys with no cdk.json default: unset means "not wanted" or "derived from another key". */
const OPTIONAL_KEYS = [
  "alarmEmail",
  "consoleClientId",
  "consoleConnectOrigins",
  "consoleBuildDir",
  "consoleDomainName",
  "consoleCertificateArn",
  "consoleWebAclArn",
  "keepLegacyNewestIndex",
] as const;
const FlagSchema = v.optional(
  v.union(
    [v.boolean(), v.pipe(v.picklist(["true", "false"]), v.transform((text) => text === "true"))],
    "context keepLegacyNewestIndex must be true or false",
  ),
  false,
);
type OptionalKey = (typeof OPTIONAL_KEYS)[number];
const isOptional = (key: string): key is OptionalKey => (OPTIONAL_KEYS as readonly string[]).includes(key);

function parse<S extends v.GenericSchema>(schema: S, key: string, raw: unknown): v.InferOutput<S> {
  const result = v.safeParse(schema, raw);
  if (result.success) return result.output;
  throw new DeployConfigError(result.issues[0]?.message ?? `context ${key} is invalid`);
}

/**
 * Reads and checks every context value; a bad value fails synth with a message naming the key. The JWT placeholders
 * fail it too: a stack whose API rejects every token must never reach `cdk deploy`.
 */
export function readDeployConfig(node: Node): DeployConfig {
  const get = (key: keyof typeof CONTEXT_DEFAULTS | OptionalKey): unknown => {
    const value: unknown = node.tryGetContext(key);
    if (value !== undefined && value !== null && value !== "") return value;
    return isOptional(key) ? undefined : CONTEXT_DEFAULTS[key];
  };
  const jwtIssuer = parse(IssuerSchema, "jwtIssuer", get("jwtIssuer"));
  const jwtAudience = parse(AudienceSchema, "jwtAudience", get("jwtAudience"));
  if (jwtIssuer === PLACEHOLDER_JWT_ISSUER || jwtAudience.includes(PLACEHOLDER_JWT_AUDIENCE)) {
    throw new DeployConfigError(
      "context jwtIssuer/jwtAudience are still the placeholders of cdk.json: the API would reject every token. " +
        "Pass the identity provider's values: -c jwtIssuer=<OIDC issuer URL> -c jwtAudience=<client id> (docs/operations.md).",
    );
  }
  const consoleClientId = parse(ClientIdSchema, "consoleClientId", get("consoleClientId")) ?? (jwtAudience[0] as string);
  if (!jwtAudience.includes(consoleClientId)) {
    throw new DeployConfigError(
      `context consoleClientId (${JSON.stringify(consoleClientId)}) must be one of jwtAudience (${jwtAudience.join(", ")}): ` +
        "the console sends its ID token, whose aud is its client id, and the API accepts only jwtAudience.",
    );
  }
  const { schedule, enabled, label } = parseSyncSchedule(get("syncSchedule"));
  const apiThrottleRate = parse(ApiThrottleRateSchema, "apiThrottleRate", get("apiThrottleRate"));
  const apiThrottleBurst = parse(ApiThrottleBurstSchema, "apiThrottleBurst", get("apiThrottleBurst"));
  if (apiThrottleBurst < apiThrottleRate) {
    throw new DeployConfigError(`context apiThrottleBurst (${apiThrottleBurst}) must be at least apiThrottleRate (${apiThrottleRate})`);
  }
  const pageTaskConcurrency = parse(PageTaskConcurrencySchema, "pageTaskConcurrency", get("pageTaskConcurrency"));
  const maxConcurrentRuns = parse(MaxConcurrentRunsSchema, "maxConcurrentRuns", get("maxConcurrentRuns"));
  if (maxConcurrentRuns > pageTaskConcurrency) {
    throw new DeployConfigError(
      `context maxConcurrentRuns (${maxConcurrentRuns}) must be at most pageTaskConcurrency (${pageTaskConcurrency}): each run holds at most one page task, and runs past the page slots would fail over to throttled retries instead of waiting in the dispatch Map`,
    );
  }
  const domainName = parse(DomainNameSchema, "consoleDomainName", get("consoleDomainName"));
  const certificateArn = parse(CertificateArnSchema, "consoleCertificateArn", get("consoleCertificateArn"));
  if ((domainName === undefined) !== (certificateArn === undefined)) {
    throw new DeployConfigError(
      "context consoleDomainName and consoleCertificateArn go together: the console's own domain needs an ACM certificate (us-east-1) that covers it, and a certificate needs the name it serves",
    );
  }
  const apiConcurrency = parse(ApiConcurrencySchema, "apiConcurrency", get("apiConcurrency"));
  const accountConcurrency = parse(AccountConcurrencySchema, "accountConcurrency", get("accountConcurrency"));
  checkReservedConcurrency({ pageTaskConcurrency, apiConcurrency, accountConcurrency });
  return {
    jwtIssuer,
    jwtAudience,
    syncSchedule: schedule,
    syncScheduleEnabled: enabled,
    syncScheduleLabel: label,
    logRetention: parse(RetentionSchema, "logRetentionDays", get("logRetentionDays")),
    alarmEmail: parse(EmailSchema, "alarmEmail", get("alarmEmail")),
    pageTaskConcurrency,
    maxConcurrentRuns,
    apiConcurrency,
    accountConcurrency,
    apiThrottleRate,
    apiThrottleBurst,
    noSuccessAlarmHours: parse(NoSuccessHoursSchema, "noSuccessAlarmHours", get("noSuccessAlarmHours")),
    consoleClientId,
    consoleConnectOrigins: parse(ConnectOriginsSchema, "consoleConnectOrigins", get("consoleConnectOrigins")) ?? [],
    consoleBuildDir: resolve(parse(BuildDirSchema, "consoleBuildDir", get("consoleBuildDir")) ?? CONSOLE_DIST_DIR),
    consoleDomain: domainName === undefined || certificateArn === undefined ? undefined : { domainName, certificateArn },
    consoleWebAclArn: parse(WebAclArnSchema, "consoleWebAclArn", get("consoleWebAclArn")),
    keepLegacyNewestIndex: parse(FlagSchema, "keepLegacyNewestIndex", get("keepLegacyNewestIndex")),
  };
}

const count = (n: number) => n.toLocaleString("en-US");

/**
 * Each setting fits on its own, but the reservations add up: a deploy whose sum leaves less than 100 of the account's
 * quota unreserved fails on a function, mid-deploy. Failing the synth names the settings instead.
 */
function checkReservedConcurrency(config: { pageTaskConcurrency: number; apiConcurrency: number; accountConcurrency: number }): void {
  const { total } = reservedConcurrencyOf(config);
  const reservable = config.accountConcurrency - UNRESERVED_CONCURRENCY;
  if (total <= reservable) return;
  const fixed = Object.values(FIXED_RESERVED_CONCURRENCY).reduce((sum, each) => sum + each, 0);
  const fixedNames = Object.entries(FIXED_RESERVED_CONCURRENCY).map(([name, n]) => `${name} ${n}`).join(", ");
  throw new DeployConfigError(
    `context pageTaskConcurrency (${count(config.pageTaskConcurrency)}) + ${API_CONCURRENCY_FUNCTIONS.length} × apiConcurrency (${count(config.apiConcurrency)}) + ${fixed} fixed (${fixedNames}) ` +
      `reserve ${count(total)} concurrent executions, but an account whose Lambda concurrency quota is accountConcurrency (${count(config.accountConcurrency)}) may reserve at most ${count(reservable)} ` +
      `(Lambda keeps ${UNRESERVED_CONCURRENCY} unreserved): lower pageTaskConcurrency or apiConcurrency, or raise the quota and set accountConcurrency to it (docs/operations.md).`,
  );
}
