import { fileURLToPath } from "node:url";
import { Duration, Stack, Validations } from "aws-cdk-lib";
import { PolicyStatement, Role, ServicePrincipal } from "aws-cdk-lib/aws-iam";
import { Alias, ApplicationLogLevel, Architecture, LoggingFormat, Runtime, SystemLogLevel, Tracing } from "aws-cdk-lib/aws-lambda";
import { LogLevel, NodejsFunction, OutputFormat } from "aws-cdk-lib/aws-lambda-nodejs";
import { LogGroup, type RetentionDays } from "aws-cdk-lib/aws-logs";
import { Construct } from "constructs";
import { METRIC_SERVICE } from "../lambdas/domain/core/metric-names";

/** The CloudWatch namespace of the service's metrics (EMF from the functions, metric filters): one per stack. */
export const metricNamespace = (scope: Construct): string => `CrmIntegration/${Stack.of(scope).stackName}`;

/** The repository root: NodejsFunction's projectRoot and the base of every entry path. */
export const REPO_ROOT = fileURLToPath(new URL("..", import.meta.url));

/** The Lambda entry points, lambdas/runtimes/aws/entrypoints/<name>.ts. */
export type EntryPoint =
  | "sync-begin-run"
  | "sync-page"
  | "sync-entity-failed"
  | "sync-stop-run"
  | "sync-finish-run"
  | "dispatcher"
  | "onboarding-api"
  | "openapi-document"
  | "preflight-worker"
  | "preflight-failed"
  | "purge-deleted-connections"
  | "manager-refresh"
  | "webhook-delivery";

export const entryPath = (entry: EntryPoint): string => fileURLToPath(new URL(`../lambdas/runtimes/aws/entrypoints/${entry}.ts`, import.meta.url));

/**
 * ESM bundles need `require` for the CommonJS modules esbuild inlines (parts of
 * the AWS SDK, undici): Node gives ESM no `require`, so the bundle makes one.
 */
export const ESM_REQUIRE_BANNER = "import { createRequire } from 'module'; const require = createRequire(import.meta.url);";

export interface ServiceFunctionProps {
  readonly entry: EntryPoint;
  readonly description: string;
  readonly memorySize: number;
  readonly timeout: Duration;
  readonly environment: Record<string, string>;
  readonly logRetention: RetentionDays;
  /** Reserved concurrency: both a floor no other function can take and a ceiling. Unset: the account's shared pool. */
  readonly reservedConcurrency?: number;
}

/** The alias every caller invokes (state machine, API, schedule): see ServiceFunction. */
export const LIVE_ALIAS = "live";

/**
 * One Lambda of the service: nodejs22.x on arm64, bundled by the locally
 * installed esbuild (never Docker), with its own log group (retention from
 * context) and its own role. The role starts with nothing but writing to that
 * one log group, instead of AWSLambdaBasicExecutionRole (logs:* on every log
 * group); each construct then grants exactly what its function needs.
 *
 * Every deploy publishes a version and moves the `live` alias to it; callers
 * invoke the alias, never $LATEST, so an invocation runs one published version
 * from start to end and a rollback is moving the alias back.
 */
export class ServiceFunction extends Construct {
  readonly function: NodejsFunction;
  readonly role: Role;
  readonly logGroup: LogGroup;
  readonly alias: Alias;

  constructor(scope: Construct, id: string, props: ServiceFunctionProps) {
    super(scope, id);
    this.logGroup = new LogGroup(this, "Logs", { retention: props.logRetention });
    this.role = new Role(this, "Role", {
      assumedBy: new ServicePrincipal("lambda.amazonaws.com"),
      description: `${props.description} (Lambda execution role)`,
    });
    this.role.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ["logs:CreateLogStream", "logs:PutLogEvents"],
        // The log group's Arn attribute ends in `:*`, which covers its streams and nothing else.
        resources: [this.logGroup.logGroupArn],
      }),
    );
    this.function = new NodejsFunction(this, "Function", {
      entry: entryPath(props.entry),
      handler: "handler",
      projectRoot: REPO_ROOT,
      depsLockFilePath: fileURLToPath(new URL("../package-lock.json", import.meta.url)),
      description: props.description,
      runtime: Runtime.NODEJS_22_X,
      architecture: Architecture.ARM_64,
      memorySize: props.memorySize,
      timeout: props.timeout,
      ...(props.reservedConcurrency === undefined ? {} : { reservedConcurrentExecutions: props.reservedConcurrency }),
      role: this.role,
      logGroup: this.logGroup,
      // Lambda's advanced logging controls: JSON lines, and the level Powertools' Logger obeys (AWS_LAMBDA_LOG_LEVEL),
      // changed on the function's configuration without a deploy of code.
      loggingFormat: LoggingFormat.JSON,
      applicationLogLevelV2: ApplicationLogLevel.INFO,
      systemLogLevelV2: SystemLogLevel.WARN,
      // Active tracing: an X-Ray trace per invocation; Powertools' Tracer adds the SDK calls and the run_id annotation.
      tracing: Tracing.ACTIVE,
      environment: {
        ...props.environment,
        NODE_OPTIONS: "--enable-source-maps",
        POWERTOOLS_SERVICE_NAME: METRIC_SERVICE,
        POWERTOOLS_METRICS_NAMESPACE: metricNamespace(this),
      },
      bundling: {
        format: OutputFormat.ESM,
        target: "node22",
        mainFields: ["module", "main"],
        banner: ESM_REQUIRE_BANNER,
        forceDockerBundling: false,
        // The AWS SDK is bundled, not taken from the runtime: the deployed code runs the SDK version the tests ran.
        externalModules: [],
        minify: true,
        sourceMap: true,
        sourcesContent: false,
        // esbuild's warnings and errors, not its info-level summary of output files, which marks every file over
        // 1 MiB: each bundle carries undici and the AWS SDK on purpose; test/cdk/bundling.e2e.test.ts checks the
        // sizes instead (docs/aws-guardrails.md, "Bundles").
        logLevel: LogLevel.WARNING,
      },
    });
    this.alias = new Alias(this, "Live", { aliasName: LIVE_ALIAS, version: this.function.currentVersion });
    Validations.of(this.role).acknowledge({
      id: "AwsSolutions-IAM5[Resource::*]",
      reason:
        "Added by CDK for active tracing: xray:PutTraceSegments and xray:PutTelemetryRecords support no resource-level permission, so their only resource is '*'. Every other statement of this role names its resources.",
    });
    Validations.of(this.function).acknowledge({
      id: "AwsSolutions-L1",
      reason:
        "nodejs22.x is the runtime this service is built and tested for (issue decision; the bundle targets node22). It is a supported Lambda runtime; moving to a newer one is a deliberate upgrade with its own test run, not a side effect of the rule.",
    });
  }
}

/** Memory and timeouts of the functions. */
export const FUNCTION_SIZES = {
  /**
   * Its own request and the next page's early one (SOURCE_REQUEST_TIMEOUT_MS each, each asked once more for a rotated
   * token), the rate limit and the writes: 88 s at worst (test/statemachine/express-page-loop.unit.test.ts).
   */
  syncPage: { memorySize: 512, timeout: Duration.seconds(100) },
  syncStep: { memorySize: 512, timeout: Duration.seconds(30) },
  /** A page of connections (one Query) or one run lock: the schedule tick's steps are short. */
  dispatcher: { memorySize: 512, timeout: Duration.seconds(30) },
  /** API Gateway's HTTP API gives an integration at most 30 s; 29 s leaves the function's own error inside it. */
  api: { memorySize: 512, timeout: Duration.seconds(29) },
  /** A static document: small and short. */
  openApi: { memorySize: 256, timeout: Duration.seconds(10) },
  /** The conformance kit from the service: Lambda's longest run; the check samples PREFLIGHT_SERVICE_MAX_PAGES per endpoint to fit. */
  preflightWorker: { memorySize: 512, timeout: Duration.minutes(15) },
  /** The worker's on-failure destination: one read and one write of a preflight run. */
  preflightFailed: { memorySize: 256, timeout: Duration.seconds(30) },
  /** The hourly purge: PURGE_MAX_ITEMS_PER_INVOCATION deletes take minutes at most; the rest waits for the next hour. */
  purge: { memorySize: 512, timeout: Duration.minutes(15) },
  /** A connection's every lead, task and call read and folded into per-manager aggregates (docs/analytics-api.md): Lambda's longest run, memory for the ids it keeps. */
  managerRefresh: { memorySize: 1024, timeout: Duration.minutes(15) },
  /** One sweep: WEBHOOK_SWEEP_BATCH attempts, WEBHOOK_SWEEP_CONCURRENCY at once, each at most WEBHOOK_REQUEST_TIMEOUT_MS: 100 s at worst. */
  webhookDelivery: { memorySize: 256, timeout: Duration.minutes(3) },
} as const;
