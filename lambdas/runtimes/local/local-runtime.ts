import { createDynamoDbClient } from "../../adapters/dynamodb/table/dynamodb-client";
import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Logger } from "../../domain/core/ports/logger";
import { PURGE_INTERVAL_MINUTES } from "../../domain/retention/purge-deleted-connections";
import { WEBHOOK_SWEEP_INTERVAL_MINUTES } from "../../domain/webhooks/webhook-limits";
import { startSync } from "../../domain/sync/start-sync";
import { ensureTable } from "../../adapters/dynamodb/table/table-definition";
import { AesGcmTokenCipher, loadOrCreateKeyFile } from "../../adapters/local/aes-token-cipher";
import { startDynamoDbLocal } from "./dynamodb-local";
import type { LocalDispatch } from "./local-dispatch";
import { createLocalJobs, createLocalService, type LocalService } from "./local-composition";
import { StartupError, type LocalRuntimeConfig } from "./local-runtime-config";
import { scheduleLabel, startLocalSchedule } from "./local-schedule";
import { checkDataDir, checkJava, checkPortFree } from "./startup-checks";
import { lockDataDir } from "./data-dir-lock";

/** The local table; DynamoDB Local keeps it in DATA_DIR/dynamodb. */
export const LOCAL_TABLE_NAME = "crm-integration";
/** DynamoDB Local's folder inside DATA_DIR: its database and its temporary folder (ENGINE_TMP_DIR). */
export const DYNAMODB_DATA_DIR = "dynamodb";

export interface LocalRuntime {
  readonly service: LocalService;
  /** The schedule tick: what SCHEDULE fires. */
  readonly dispatch: LocalDispatch;
  /** e.g. http://127.0.0.1:3000 */
  readonly url: string;
  readonly dataDir: string;
  /** DynamoDB Local's address (DYNAMODB_PORT 0 picks a free port): for tools that read the store beside the service. */
  readonly dynamodbEndpoint: string;
  stop(): Promise<void>;
}

/**
 * `npm start`: the whole service on one machine. DynamoDB Local keeps its data
 * in DATA_DIR, so connections, records, watermarks and run summaries survive a
 * restart; a run cut short by the last stop is resumed from its watermarks.
 */
export async function startLocalRuntime(config: LocalRuntimeConfig, logger: Logger): Promise<LocalRuntime> {
  const dataDir = resolve(config.DATA_DIR);
  const dynamoDbDir = join(dataDir, DYNAMODB_DATA_DIR);
  checkDataDir(dataDir, dynamoDbDir);
  await checkPortFree(config.PORT, config.HOST);
  await checkJava();
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const unlock = lockDataDir(dataDir);
  try {
    return await startOnLockedDataDir(config, logger, dataDir, dynamoDbDir, unlock);
  } catch (error) {
    unlock();
    throw error;
  }
}

async function startOnLockedDataDir(config: LocalRuntimeConfig, logger: Logger, dataDir: string, dynamoDbDir: string, unlock: () => void): Promise<LocalRuntime> {
  let key: Buffer;
  try {
    key = await loadOrCreateKeyFile(join(dataDir, "token-encryption.key"));
  } catch (error) {
    throw new StartupError(`the token key in ${dataDir} cannot be used (${(error as Error).message}): restore it, or move ${dataDir} away to start fresh`);
  }

  const dynamodb = await startDynamoDbLocal({ dataDir: dynamoDbDir, ...(config.DYNAMODB_PORT ? { port: config.DYNAMODB_PORT } : {}) });
  const client = createDynamoDbClient({
    endpoint: dynamodb.endpoint,
    region: "local",
    credentials: { accessKeyId: "local", secretAccessKey: "local" },
  });
  try {
    await ensureTable(client, LOCAL_TABLE_NAME);
    const service = await createLocalService({
      client,
      tableName: LOCAL_TABLE_NAME,
      cipher: new AesGcmTokenCipher(key),
      logger,
      dataDir,
      timeScale: config.TIME_SCALE,
      allowLoopbackSources: config.ALLOW_LOOPBACK_SOURCES,
      schedule: scheduleLabel(config.SCHEDULE),
      fetchAhead: config.FETCH_AHEAD,
      ...(config.PAGE_TASKS_PER_EXECUTION === undefined ? {} : { pageTasksPerExecution: config.PAGE_TASKS_PER_EXECUTION }),
      ...(config.CRASH_GATES === undefined ? {} : { crashGatesUrl: config.CRASH_GATES }),
      ...(config.OIDC_ISSUER === undefined || config.OIDC_CLIENT_ID === undefined
        ? {}
        : { oidc: { issuer: config.OIDC_ISSUER, clientId: config.OIDC_CLIENT_ID } }),
    });
    const api = await service.listen(config.PORT, config.HOST);
    await resumeCutShortRuns(service, logger);
    const jobs = createLocalJobs(service.sync, {
      maxConcurrentRuns: config.MAX_CONCURRENT_RUNS,
      timeScale: config.TIME_SCALE,
      logger,
    });
    const stopSchedule = startLocalSchedule(
      config.SCHEDULE,
      () => jobs.dispatch.tick(),
      (error) => logger.error("scheduled dispatch failed", { error: String(error) }),
    );
    // Maintenance, not syncing: it runs hourly whatever SCHEDULE says.
    const stopPurge = startLocalSchedule(
      PURGE_INTERVAL_MINUTES * 60_000,
      () => jobs.purge(),
      (error) => logger.error("scheduled purge failed", { error: String(error) }),
    );

    // Webhook attempts due after the first (the retries): what AWS's schedule does every minute.
    const stopWebhooks = startLocalSchedule(
      WEBHOOK_SWEEP_INTERVAL_MINUTES * 60_000,
      () => service.sync.webhooks.sweep(),
      (error) => logger.error("scheduled webhook sweep failed", { error: String(error) }),
    );

    let stopping: Promise<void> | undefined;
    return {
      service,
      dispatch: jobs.dispatch,
      url: api.url,
      dataDir,
      dynamodbEndpoint: dynamodb.endpoint,
      stop: () =>
        (stopping ??= (async () => {
          stopSchedule();
          stopPurge();
          stopWebhooks();
          await api.close();
          await jobs.stop();
          await service.sync.stop();
          client.destroy();
          await dynamodb.stop();
          unlock();
        })()),
    };
  } catch (error) {
    client.destroy();
    await dynamodb.stop();
    throw error;
  }
}

/** Runs that were running when the runtime last stopped: their executions died with it, so start them again. */
async function resumeCutShortRuns(service: LocalService, logger: Logger): Promise<void> {
  for (const connection of await service.sync.connections.listAll()) {
    const [latest] = await service.sync.runs.list(connection.id, { limit: 1 });
    if (latest?.status !== "running") continue;
    // Nothing of the last process runs any more, so even a lock caught handing over to a fresh execution is dead.
    const { runId, started } = await startSync(service.sync.startDeps, connection, { earlierExecutionsGone: true });
    logger.info("resumed a run cut short by the last stop", { connection_id: connection.id, interrupted_run_id: latest.id, run_id: runId, started });
  }
}
