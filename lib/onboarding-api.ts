import { Duration, Validations } from "aws-cdk-lib";
import { AccessLogFormat } from "aws-cdk-lib/aws-apigateway";
import {
  HttpApi,
  HttpMethod,
  HttpNoneAuthorizer,
  HttpRoute,
  HttpRouteKey,
  HttpStage,
  LogGroupLogDestination,
  type IHttpRouteAuthorizer,
} from "aws-cdk-lib/aws-apigatewayv2";
import { HttpJwtAuthorizer } from "aws-cdk-lib/aws-apigatewayv2-authorizers";
import { HttpLambdaIntegration } from "aws-cdk-lib/aws-apigatewayv2-integrations";
import { LambdaDestination } from "aws-cdk-lib/aws-lambda-destinations";
import { LogGroup, type RetentionDays } from "aws-cdk-lib/aws-logs";
import { Construct } from "constructs";
import { PUBLIC_ROUTE_KEYS, ROUTES } from "../lambdas/handlers/http/routes";
import { PREFLIGHT_TIME_LIMIT_MS } from "../lambdas/domain/preflight/preflight-failure";
import { FIXED_RESERVED_CONCURRENCY } from "./deploy-config";
import type { RecordTable } from "./record-table";
import { FUNCTION_SIZES, ServiceFunction } from "./service-function";
import type { SourceTokenKey } from "./source-token-key";
import type { SyncStateMachine } from "./sync-state-machine";
import { TABLE_ACCESS } from "./table-access";

/** The public OpenAPI route's function: a flood on the one unauthenticated route can take at most this many. */
export const OPENAPI_CONCURRENCY = FIXED_RESERVED_CONCURRENCY.OpenApi;

export interface OnboardingApiProps {
  readonly table: RecordTable;
  readonly tokenKey: SourceTokenKey;
  readonly syncStateMachine: SyncStateMachine;
  readonly jwtIssuer: string;
  readonly jwtAudience: readonly string[];
  readonly logRetention: RetentionDays;
  /** Reserved concurrency of each authenticated API function (context apiConcurrency). */
  readonly apiConcurrency: number;
  /** Stage throttling over all routes (context apiThrottleRate, apiThrottleBurst). */
  readonly throttle: { readonly rateLimit: number; readonly burstLimit: number };
  /** The schedule as the owner reads it on each connection (context syncSchedule as given). */
  readonly scheduleLabel: string;
}

/** `METHOD /path` (ROUTES' routeKey) as CDK's route key. */
export function parseRouteKey(routeKey: string): HttpRouteKey {
  const match = /^([A-Z]+) (\/\S*)$/.exec(routeKey);
  const method = match?.[1] as keyof typeof HttpMethod | undefined;
  if (match === null || method === undefined || !(method in HttpMethod)) throw new Error(`not a route key: ${routeKey}`);
  return HttpRouteKey.with(match[2] as string, HttpMethod[method]);
}

/**
 * The onboarding HTTP API: every route of ROUTES behind the JWT authorizer
 * (the workspace identity provider's session token), plus the public OpenAPI
 * document. Two functions run the same entry point
 * (lambdas/runtimes/aws/entrypoints/onboarding-api.ts) with different rights, and a third
 * serves the public document alone:
 *
 * - Api: every route but the connection tests; stores tokens (kms:Encrypt),
 *   starts and describes sync executions. Never decrypts.
 * - TestConnectionApi: the routes with `callsSource` (the live test call of a
 *   stored connection, and of one typed but not stored); decrypts a token
 *   (kms:Decrypt), never encrypts, stores nothing, starts nothing.
 *
 * - OpenApi: `GET /api/v1/openapi.json` (lambdas/runtimes/aws/entrypoints/openapi-document.ts);
 *   no table, no key, no state machine, so the one public route reaches no data.
 *
 * Beside them, the preflight worker (POST .../preflight invokes it asynchronously) and its on-failure destination,
 * PreflightFailed, which ends a run the worker could not.
 *
 * So no single function of the API can both write a token and read one back.
 * The stage throttles all routes together; each function has reserved
 * concurrency, so a burst of syncs cannot starve the API (nor the API the syncs).
 */
export class OnboardingApi extends Construct {
  readonly httpApi: HttpApi;
  readonly stage: HttpStage;
  readonly apiFunction: ServiceFunction;
  readonly testConnectionFunction: ServiceFunction;
  readonly openApiFunction: ServiceFunction;
  readonly preflightWorkerFunction: ServiceFunction;
  readonly preflightFailedFunction: ServiceFunction;
  readonly authorizer: HttpJwtAuthorizer;
  readonly accessLogs: LogGroup;

  constructor(scope: Construct, id: string, props: OnboardingApiProps) {
    super(scope, id);
    const environment = {
      TABLE_NAME: props.table.table.tableName,
      KMS_KEY_ID: props.tokenKey.key.keyArn,
      STATE_MACHINE_ARN: props.syncStateMachine.stateMachine.stateMachineArn,
      // The SSRF guard refuses loopback and private source addresses in AWS; only the local runtime turns this on.
      ALLOW_LOOPBACK_SOURCES: "false",
    };

    // The conformance kit from the service (POST .../preflight): the API invokes it asynchronously.
    const { STATE_MACHINE_ARN: _notNeeded, ...workerEnvironment } = environment;
    this.preflightWorkerFunction = new ServiceFunction(this, "PreflightWorker", {
      entry: "preflight-worker",
      description: "Onboarding API: runs the conformance kit against a connection's source (async, launched by POST .../preflight)",
      ...FUNCTION_SIZES.preflightWorker,
      environment: workerEnvironment,
      logRetention: props.logRetention,
      reservedConcurrency: props.apiConcurrency,
    });
    props.table.grantItemActions(this.preflightWorkerFunction.role, TABLE_ACCESS.PreflightWorker);
    props.tokenKey.grantDecryptToken(this.preflightWorkerFunction.role);

    // A worker that fails or times out cannot end its own run: Lambda hands the job to this function, which ends it
    // failed (by the time limit, or on an error of ours). No retry: it would start a second check of the source.
    this.preflightFailedFunction = new ServiceFunction(this, "PreflightFailed", {
      entry: "preflight-failed",
      description: "Onboarding API: ends a preflight its worker left running (the worker's on-failure destination)",
      ...FUNCTION_SIZES.preflightFailed,
      environment: { TABLE_NAME: props.table.table.tableName },
      logRetention: props.logRetention,
    });
    props.table.grantItemActions(this.preflightFailedFunction.role, TABLE_ACCESS.PreflightFailed);
    this.preflightWorkerFunction.alias.configureAsyncInvoke({
      onFailure: new LambdaDestination(this.preflightFailedFunction.alias),
      retryAttempts: 0,
      // A job still queued when its run's time limit has passed could only fail by it.
      maxEventAge: Duration.millis(PREFLIGHT_TIME_LIMIT_MS),
    });

    // Both API functions run the same composition root (lambdas/runtimes/aws/aws-config.ts ApiConfigSchema).
    const apiEnvironment = {
      ...environment,
      PREFLIGHT_FUNCTION_NAME: this.preflightWorkerFunction.alias.functionArn,
      SYNC_SCHEDULE: props.scheduleLabel,
    };
    this.apiFunction = new ServiceFunction(this, "Api", {
      entry: "onboarding-api",
      description: "Onboarding API: every route but the connection test",
      ...FUNCTION_SIZES.api,
      environment: apiEnvironment,
      logRetention: props.logRetention,
      reservedConcurrency: props.apiConcurrency,
    });
    // Only the Api function serves POST .../preflight, so only it may invoke the worker.
    this.preflightWorkerFunction.alias.grantInvoke(this.apiFunction.role);
    props.table.grantItemActions(this.apiFunction.role, TABLE_ACCESS.Api);
    props.table.grantNewestIndexQuery(this.apiFunction.role);
    props.tokenKey.grantEncryptToken(this.apiFunction.role);
    props.syncStateMachine.grantStartRuns(this.apiFunction.role);
    props.syncStateMachine.grantStopRuns(this.apiFunction.role);

    this.testConnectionFunction = new ServiceFunction(this, "TestConnectionApi", {
      entry: "onboarding-api",
      description: "Onboarding API: the connection test route (calls the source)",
      ...FUNCTION_SIZES.api,
      environment: apiEnvironment,
      logRetention: props.logRetention,
      reservedConcurrency: props.apiConcurrency,
    });
    // Read the connection; write the rate limiter's slot log.
    props.table.grantItemActions(this.testConnectionFunction.role, TABLE_ACCESS.TestConnectionApi);
    props.tokenKey.grantDecryptToken(this.testConnectionFunction.role);

    this.openApiFunction = new ServiceFunction(this, "OpenApi", {
      entry: "openapi-document",
      description: "Onboarding API: the public OpenAPI document (no data access)",
      ...FUNCTION_SIZES.openApi,
      environment: {},
      logRetention: props.logRetention,
      reservedConcurrency: OPENAPI_CONCURRENCY,
    });

    this.authorizer = new HttpJwtAuthorizer("OwnerSession", props.jwtIssuer, {
      jwtAudience: [...props.jwtAudience],
      authorizerName: "workspace-session-jwt",
    });

    this.httpApi = new HttpApi(this, "HttpApi", {
      description: "Custom CRM integration: onboarding API",
      createDefaultStage: false,
    });
    this.accessLogs = new LogGroup(this, "AccessLogs", { retention: props.logRetention });
    this.stage = new HttpStage(this, "DefaultStage", {
      httpApi: this.httpApi,
      stageName: "$default",
      autoDeploy: true,
      throttle: { rateLimit: props.throttle.rateLimit, burstLimit: props.throttle.burstLimit },
      accessLogSettings: {
        destination: new LogGroupLogDestination(this.accessLogs),
        // Never headers or bodies: they carry session and source tokens.
        format: AccessLogFormat.custom(
          JSON.stringify({
            requestId: "$context.requestId",
            requestTime: "$context.requestTime",
            ip: "$context.identity.sourceIp",
            routeKey: "$context.routeKey",
            status: "$context.status",
            responseLength: "$context.responseLength",
            latencyMs: "$context.responseLatency",
            integrationLatencyMs: "$context.integrationLatency",
            integrationError: "$context.integrationErrorMessage",
            authorizerError: "$context.authorizer.error",
            businessAccountId: "$context.authorizer.claims.business_account_id",
            sub: "$context.authorizer.claims.sub",
          }),
        ),
      },
    });

    const apiIntegration = new HttpLambdaIntegration("Api", this.apiFunction.alias);
    const testIntegration = new HttpLambdaIntegration("TestConnection", this.testConnectionFunction.alias);
    const openApiIntegration = new HttpLambdaIntegration("OpenApi", this.openApiFunction.alias);
    const route = (id: string, routeKey: string, integration: HttpLambdaIntegration, authorizer: IHttpRouteAuthorizer) =>
      new HttpRoute(this, id, { httpApi: this.httpApi, routeKey: parseRouteKey(routeKey), integration, authorizer });
    for (const r of ROUTES) {
      route(`Route-${r.operationId}`, r.routeKey, r.callsSource === true ? testIntegration : apiIntegration, this.authorizer);
    }
    for (const [index, routeKey] of PUBLIC_ROUTE_KEYS.entries()) {
      const publicRoute = route(index === 0 ? "Route-openApi" : `Route-public-${index}`, routeKey, openApiIntegration, new HttpNoneAuthorizer());
      Validations.of(publicRoute).acknowledge({
        id: "AwsSolutions-APIG4",
        reason: `${routeKey} serves an API description and is public on purpose (PUBLIC_ROUTE_KEYS); its own function (OpenApi) has no table, key or state machine rights, so it reads nothing of any workspace. Every other route has the JWT authorizer.`,
      });
    }
  }

  /** The API's base URL ($default stage). */
  get url(): string {
    return this.stage.url;
  }
}
