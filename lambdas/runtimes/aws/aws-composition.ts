import { DynamoDbAuditStore } from "../../adapters/dynamodb/audits/dynamodb-audit-store";
import type { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { createDynamoDbClient } from "../../adapters/dynamodb/table/dynamodb-client";
import { KMSClient } from "@aws-sdk/client-kms";
import { LambdaClient } from "@aws-sdk/client-lambda";
import { SFNClient } from "@aws-sdk/client-sfn";
import { EventBridgeClient } from "@aws-sdk/client-eventbridge";
import { DynamoDbNotificationStore } from "../../adapters/dynamodb/notifications/dynamodb-notification-store";
import { notifyingPublisher } from "../../domain/notifications/notifying-publisher";
import { scheduleIntervalMs } from "../../domain/sync/schedule-interval";
import { EventBridgeEventPublisher } from "../../adapters/aws/eventbridge-event-publisher";
import { systemClock } from "../../domain/core/ports/clock";
import { DynamoDbConnectionStore } from "../../adapters/dynamodb/connections/dynamodb-connection-store";
import type { OnboardingDeps } from "../../domain/onboarding/onboarding-deps";
import { DynamoDbRateLimiter } from "../../adapters/dynamodb/rate-limit/dynamodb-rate-limiter";
import { DynamoDbRunStore } from "../../adapters/dynamodb/runs/dynamodb-run-store";
import { createHttpSourceClient } from "../../adapters/source-http/http-source-client";
import { createGuardedFetch } from "../../adapters/source-http/ssrf/guarded-fetch";
import { baseUrlPolicy } from "../../adapters/source-http/ssrf/base-url-policy";
import { dynamoDbKeySpace } from "../../adapters/dynamodb/dynamodb-key-space";
import { DynamoDbRecordStore } from "../../adapters/dynamodb/records/dynamodb-record-store";
import type { StartSyncDeps, SyncDeps } from "../../domain/sync/sync-deps";
import type { PreflightFailureDeps } from "../../domain/preflight/preflight-failure";
import type { PreflightJobDeps } from "../../domain/preflight/preflight-job";
import { DynamoDbPreflightStore } from "../../adapters/dynamodb/preflight-runs/dynamodb-preflight-store";
import { DynamoDbPurgeQueue } from "../../adapters/dynamodb/purges/dynamodb-purge-queue";
import type { PurgeDeps } from "../../domain/retention/purge-deleted-connections";
import {
  ApiConfigSchema,
  PreflightFailedConfigSchema,
  PreflightWorkerConfigSchema,
  PurgeConfigSchema,
  readConfig,
  StarterConfigSchema,
  SyncTaskConfigSchema,
} from "./aws-config";
import { cachingDecrypts } from "../../adapters/aws/cached-token-cipher";
import { KmsTokenCipher } from "../../adapters/aws/kms-token-cipher";
import { createLambdaObservability } from "../../adapters/aws/lambda-observability";
import { LambdaPreflightLauncher } from "../../adapters/aws/lambda-preflight-launcher";
import { SfnRunStarter } from "../../adapters/aws/sfn-run-starter";

/**
 * The composition root in AWS: clients are built once per Lambda process
 * (module scope of the entry point calls these once), never per request and
 * never inside the domain.
 */
const clock = systemClock;
const observability = createLambdaObservability();
const { logger, metrics, tracer } = observability;

/** Every entry point wraps its handler in this: tracing, request id, cold start, the run's ids (lambda-observability.ts). */
export const observed = observability.observed;

// X-Ray subsegments for every AWS call (active tracing is on for every function: lib/service-function.ts).
const dynamoDbClient = () => tracer.captureAWSv3Client(createDynamoDbClient());
const kmsClient = () => tracer.captureAWSv3Client(new KMSClient({}));
const sfnClient = () => tracer.captureAWSv3Client(new SFNClient({}));
const lambdaClient = () => tracer.captureAWSv3Client(new LambdaClient({}));
const eventBridgeClient = () => tracer.captureAWSv3Client(new EventBridgeClient({}));

function stores(client: DynamoDBClient, tableName: string) {
  return {
    records: new DynamoDbRecordStore({ client, tableName }),
    runs: new DynamoDbRunStore({ client, tableName }),
    connections: new DynamoDbConnectionStore({ client, tableName }),
    limiter: new DynamoDbRateLimiter({ client, tableName }),
  };
}

/** Notifications first (once per event id), then EventBridge's default bus: FinishRun's and the Dispatcher's. */
function eventPublisher(client: DynamoDBClient, tableName: string) {
  return notifyingPublisher({
    notifications: new DynamoDbNotificationStore({ client, tableName }),
    out: new EventBridgeEventPublisher({ client: eventBridgeClient() }),
    clock,
    logger,
  });
}

function sourceClient(allowLoopback: boolean) {
  return createHttpSourceClient({ fetch: createGuardedFetch({ allowLoopback }) });
}

export function awsSyncDeps(env: Record<string, string | undefined> = process.env): SyncDeps {
  const config = readConfig(SyncTaskConfigSchema, env);
  const dynamodb = dynamoDbClient();
  return {
    ...stores(dynamodb, config.TABLE_NAME),
    events: eventPublisher(dynamodb, config.TABLE_NAME),
    scheduleIntervalMs: scheduleIntervalMs(config.SYNC_SCHEDULE),
    audits: new DynamoDbAuditStore({ client: dynamodb, tableName: config.TABLE_NAME }),
    // The page task decrypts once per warm container, not once per page.
    cipher: cachingDecrypts(new KmsTokenCipher({ client: kmsClient(), keyId: config.KMS_KEY_ID })),
    source: sourceClient(config.ALLOW_LOOPBACK_SOURCES),
    clock,
    logger,
    metrics,
  };
}

/** The schedule tick's (the Dispatcher's): starting runs, and telling when a paused connection turns stale. */
export function awsStartSyncDeps(env: Record<string, string | undefined> = process.env): StartSyncDeps {
  const config = readConfig(StarterConfigSchema, env);
  const dynamodb = dynamoDbClient();
  const { runs, connections, records } = stores(dynamodb, config.TABLE_NAME);
  return {
    runs,
    connections,
    starter: new SfnRunStarter({ client: sfnClient(), stateMachineArn: config.STATE_MACHINE_ARN }),
    clock,
    logger,
    staleCheck: { records, events: eventPublisher(dynamodb, config.TABLE_NAME), scheduleIntervalMs: scheduleIntervalMs(config.SYNC_SCHEDULE) },
  };
}

export function awsOnboardingDeps(env: Record<string, string | undefined> = process.env): OnboardingDeps {
  const config = readConfig(ApiConfigSchema, env);
  const dynamodb = dynamoDbClient();
  const { records, runs, connections, limiter } = stores(dynamodb, config.TABLE_NAME);
  return {
    records,
    audits: new DynamoDbAuditStore({ client: dynamodb, tableName: config.TABLE_NAME }),
    runs,
    connections,
    limiter,
    cipher: new KmsTokenCipher({ client: kmsClient(), keyId: config.KMS_KEY_ID }),
    source: sourceClient(config.ALLOW_LOOPBACK_SOURCES),
    starter: new SfnRunStarter({ client: sfnClient(), stateMachineArn: config.STATE_MACHINE_ARN }),
    preflights: new DynamoDbPreflightStore({ client: dynamodb, tableName: config.TABLE_NAME }),
    notifications: new DynamoDbNotificationStore({ client: dynamodb, tableName: config.TABLE_NAME }),
    preflightLauncher: new LambdaPreflightLauncher({ client: lambdaClient(), functionName: config.PREFLIGHT_FUNCTION_NAME }),
    clock,
    logger,
    baseUrls: baseUrlPolicy({ allowLoopback: config.ALLOW_LOOPBACK_SOURCES }),
    keySpace: dynamoDbKeySpace,
    ...(config.SYNC_SCHEDULE === undefined ? {} : { schedule: config.SYNC_SCHEDULE }),
  };
}

export function awsPreflightJobDeps(env: Record<string, string | undefined> = process.env): PreflightJobDeps {
  const config = readConfig(PreflightWorkerConfigSchema, env);
  const dynamodb = dynamoDbClient();
  const { connections, limiter } = stores(dynamodb, config.TABLE_NAME);
  return {
    connections,
    limiter,
    cipher: new KmsTokenCipher({ client: kmsClient(), keyId: config.KMS_KEY_ID }),
    preflights: new DynamoDbPreflightStore({ client: dynamodb, tableName: config.TABLE_NAME }),
    sourceFetch: createGuardedFetch({ allowLoopback: config.ALLOW_LOOPBACK_SOURCES }),
    clock,
    logger,
  };
}

/** The worker's on-failure destination: ends a run its worker left running. */
export function awsPreflightFailedDeps(env: Record<string, string | undefined> = process.env): PreflightFailureDeps {
  const config = readConfig(PreflightFailedConfigSchema, env);
  return { preflights: new DynamoDbPreflightStore({ client: dynamoDbClient(), tableName: config.TABLE_NAME }), clock, logger };
}

export function awsPurgeDeps(env: Record<string, string | undefined> = process.env): PurgeDeps {
  const config = readConfig(PurgeConfigSchema, env);
  const dynamodb = dynamoDbClient();
  return {
    purges: new DynamoDbPurgeQueue({ client: dynamodb, tableName: config.TABLE_NAME }),
    connections: stores(dynamodb, config.TABLE_NAME).connections,
    clock,
    logger,
  };
}
