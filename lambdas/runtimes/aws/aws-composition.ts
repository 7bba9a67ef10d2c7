import { createDynamoDbClient } from "../../adapters/dynamodb/table/dynamodb-client";
import { dynamoDbAdapters, type DynamoDbAdapters } from "../../adapters/dynamodb/dynamodb-adapters";
import { KMSClient } from "@aws-sdk/client-kms";
import { LambdaClient } from "@aws-sdk/client-lambda";
import { SFNClient } from "@aws-sdk/client-sfn";
import { EventBridgeClient } from "@aws-sdk/client-eventbridge";
import { notifyingPublisher } from "../../domain/notifications/notifying-publisher";
import { scheduleIntervalMs } from "../../domain/sync/schedule-interval";
import { EventBridgeEventPublisher } from "../../adapters/aws/eventbridge-event-publisher";
import { systemClock } from "../../domain/core/ports/clock";
import type { ApiDeps } from "../../domain/analytics/analytics-deps";
import { createHttpSourceClient } from "../../adapters/source-http/http-source-client";
import { createGuardedFetch } from "../../adapters/source-http/ssrf/guarded-fetch";
import { baseUrlPolicy, webhookUrlPolicy } from "../../adapters/source-http/ssrf/base-url-policy";
import { createHttpWebhookSender } from "../../adapters/webhook-http/http-webhook-sender";
import type { WebhookDeliveryDeps } from "../../domain/webhooks/deliver-webhooks";
import { dynamoDbKeySpace } from "../../adapters/dynamodb/dynamodb-key-space";
import type { StartSyncDeps, SyncDeps } from "../../domain/sync/sync-deps";
import type { PreflightFailureDeps } from "../../domain/preflight/preflight-failure";
import type { PreflightJobDeps } from "../../domain/preflight/preflight-job";
import type { PurgeDeps } from "../../domain/retention/purge-deleted-connections";
import {
  ApiConfigSchema,
  PreflightFailedConfigSchema,
  ManagerRefreshConfigSchema,
  PreflightWorkerConfigSchema,
  PurgeConfigSchema,
  readConfig,
  StarterConfigSchema,
  SyncTaskConfigSchema,
  WebhookDeliveryConfigSchema,
} from "./aws-config";
import { cachingDecrypts } from "../../adapters/aws/cached-token-cipher";
import { KmsTokenCipher } from "../../adapters/aws/kms-token-cipher";
import { createLambdaObservability } from "../../adapters/aws/lambda-observability";
import { LambdaPreflightLauncher } from "../../adapters/aws/lambda-preflight-launcher";
import { SfnRunStarter } from "../../adapters/aws/sfn-run-starter";
import { LambdaManagerRefresher } from "../../adapters/aws/lambda-manager-refresher";
import type { RefreshDeps } from "../../domain/analytics/refresh-managers";

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
/** The table's adapters over one traced client (../../adapters/dynamodb/dynamodb-adapters.ts). */
const table = (tableName: string): DynamoDbAdapters => dynamoDbAdapters({ client: dynamoDbClient(), tableName });
const kmsClient = () => tracer.captureAWSv3Client(new KMSClient({}));
const sfnClient = () => tracer.captureAWSv3Client(new SFNClient({}));
const lambdaClient = () => tracer.captureAWSv3Client(new LambdaClient({}));
const eventBridgeClient = () => tracer.captureAWSv3Client(new EventBridgeClient({}));

/** Notifications first (once per event id), then EventBridge's default bus: FinishRun's and the Dispatcher's. */
function eventPublisher({ notifications }: DynamoDbAdapters) {
  return notifyingPublisher({
    notifications,
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
  const adapters = table(config.TABLE_NAME);
  const { records, runs, connections, limiter, audits, figures } = adapters;
  return {
    records,
    figures,
    runs,
    connections,
    limiter,
    events: eventPublisher(adapters),
    scheduleIntervalMs: scheduleIntervalMs(config.SYNC_SCHEDULE),
    audits,
    // The page task decrypts once per warm container, not once per page.
    cipher: cachingDecrypts(new KmsTokenCipher({ client: kmsClient(), keyId: config.KMS_KEY_ID })),
    source: sourceClient(config.ALLOW_LOOPBACK_SOURCES),
    fetchAhead: config.FETCH_AHEAD,
    clock,
    logger,
    metrics,
    // Set on FinishRun only (lib/sync-functions.ts): the run's end asks for the per-manager figures.
    ...(config.MANAGER_REFRESH_FUNCTION_NAME === undefined
      ? {}
      : { managerRefresher: new LambdaManagerRefresher({ client: lambdaClient(), functionName: config.MANAGER_REFRESH_FUNCTION_NAME }) }),
  };
}

/** The ManagerRefresh function's: the stored records, read whole, and the aggregates written. */
export function awsManagerRefreshDeps(env: Record<string, string | undefined> = process.env): RefreshDeps {
  const config = readConfig(ManagerRefreshConfigSchema, env);
  const { recordScan, managers } = table(config.TABLE_NAME);
  return {
    scan: recordScan,
    managers,
    clock,
    logger,
  };
}

/** The schedule tick's (the Dispatcher's): starting runs, and telling when a paused connection turns stale. */
export function awsStartSyncDeps(env: Record<string, string | undefined> = process.env): StartSyncDeps {
  const config = readConfig(StarterConfigSchema, env);
  const adapters = table(config.TABLE_NAME);
  const { runs, connections, records } = adapters;
  return {
    runs,
    connections,
    starter: new SfnRunStarter({ client: sfnClient(), stateMachineArn: config.STATE_MACHINE_ARN }),
    clock,
    logger,
    staleCheck: { records, events: eventPublisher(adapters), scheduleIntervalMs: scheduleIntervalMs(config.SYNC_SCHEDULE) },
  };
}

export function awsOnboardingDeps(env: Record<string, string | undefined> = process.env): ApiDeps {
  const config = readConfig(ApiConfigSchema, env);
  const { records, audits, runs, connections, limiter, preflights, notifications, figures, managers, history, changes, webhooks } = table(config.TABLE_NAME);
  return {
    records,
    figures,
    history,
    changes,
    audits,
    runs,
    connections,
    limiter,
    cipher: new KmsTokenCipher({ client: kmsClient(), keyId: config.KMS_KEY_ID }),
    source: sourceClient(config.ALLOW_LOOPBACK_SOURCES),
    starter: new SfnRunStarter({ client: sfnClient(), stateMachineArn: config.STATE_MACHINE_ARN }),
    preflights,
    notifications,
    preflightLauncher: new LambdaPreflightLauncher({ client: lambdaClient(), functionName: config.PREFLIGHT_FUNCTION_NAME }),
    clock,
    logger,
    baseUrls: baseUrlPolicy({ allowLoopback: config.ALLOW_LOOPBACK_SOURCES }),
    keySpace: dynamoDbKeySpace,
    managers,
    webhooks,
    webhookUrls: webhookUrlPolicy({ allowLoopback: config.ALLOW_LOOPBACK_SOURCES }),
    ...(config.SYNC_SCHEDULE === undefined ? {} : { schedule: config.SYNC_SCHEDULE }),
  };
}

export function awsPreflightJobDeps(env: Record<string, string | undefined> = process.env): PreflightJobDeps {
  const config = readConfig(PreflightWorkerConfigSchema, env);
  const { connections, limiter, preflights } = table(config.TABLE_NAME);
  return {
    connections,
    limiter,
    cipher: new KmsTokenCipher({ client: kmsClient(), keyId: config.KMS_KEY_ID }),
    preflights,
    sourceFetch: createGuardedFetch({ allowLoopback: config.ALLOW_LOOPBACK_SOURCES }),
    clock,
    logger,
  };
}

/** The worker's on-failure destination: ends a run its worker left running. */
export function awsPreflightFailedDeps(env: Record<string, string | undefined> = process.env): PreflightFailureDeps {
  const config = readConfig(PreflightFailedConfigSchema, env);
  return { preflights: table(config.TABLE_NAME).preflights, clock, logger };
}

export function awsPurgeDeps(env: Record<string, string | undefined> = process.env): PurgeDeps {
  const config = readConfig(PurgeConfigSchema, env);
  const { purges, connections } = table(config.TABLE_NAME);
  return {
    purges,
    connections,
    clock,
    logger,
  };
}

/** The WebhookDelivery function's: the endpoints and deliveries, the secrets' key, the guarded sender. */
export function awsWebhookDeliveryDeps(env: Record<string, string | undefined> = process.env): WebhookDeliveryDeps {
  const config = readConfig(WebhookDeliveryConfigSchema, env);
  const { webhooks, changes } = table(config.TABLE_NAME);
  return {
    webhooks,
    // changes.committed carries the feed's cursors around the run's commits.
    changes,
    sender: createHttpWebhookSender({ allowLoopback: config.ALLOW_LOOPBACK_SOURCES }),
    // A warm container decrypts each endpoint's secret once, as the page task does the token.
    cipher: cachingDecrypts(new KmsTokenCipher({ client: kmsClient(), keyId: config.KMS_KEY_ID })),
    clock,
    logger,
  };
}
