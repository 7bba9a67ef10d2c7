import type { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { DynamoDbConnectionStore } from "../connections/dynamodb-connection-store";
import type { Clock } from "../core/ports/clock";
import type { Logger } from "../core/ports/logger";
import type { Metrics } from "../core/ports/metrics";
import type { SourceClient } from "../core/ports/source-client";
import type { TokenCipher } from "../core/ports/token-cipher";
import { systemClock } from "../core/system-clock";
import { CountingMetrics } from "../observability/counting-metrics";
import { DynamoDbRateLimiter } from "../rate-limit/dynamodb-rate-limiter";
import { DynamoDbRunStore } from "../runs/dynamodb-run-store";
import { DynamoDbRecordStore } from "../store/dynamodb-record-store";
import { makeSyncHandlers } from "../sync/handlers/sync-handlers";
import type { StartSyncDeps, SyncDeps } from "../sync/sync-deps";
import { gateContinueAsNew, gateSyncHandlers, type CrashGates } from "./crash-gates";
import { LocalSyncEngine } from "./local-sync-engine";
import type { TaskHandler } from "./step-functions/local-step-functions";

export { LOCAL_STATE_MACHINE_ARN } from "./local-sync-engine";

export interface LocalSyncOptions {
  readonly client: DynamoDBClient;
  readonly tableName: string;
  readonly cipher: TokenCipher;
  readonly source: SourceClient;
  readonly logger: Logger;
  /** Defaults to in-memory totals (the local runtime has no CloudWatch). */
  readonly metrics?: Metrics;
  /** Multiplies every wait of the state machine (never the rate limit). */
  readonly timeScale: number;
  readonly clock?: Clock;
  readonly pageTasksPerExecution?: number;
  readonly pageTasksPerSegment?: number;
  /** Test hook (CRASH_GATES): the Task handlers announce their points and wait for the control server. */
  readonly gates?: CrashGates;
}

/**
 * The sync, whole, on one machine: the DynamoDB adapters on DynamoDB Local and
 * the one ASL definition on aws-local-stepfunctions, with the same Task
 * handlers the Lambdas run. Used by the local runtime and the tests.
 */
export function createLocalSync(options: LocalSyncOptions) {
  const { client, tableName } = options;
  const clock = options.clock ?? systemClock;
  const records = new DynamoDbRecordStore({ client, tableName });
  const runs = new DynamoDbRunStore({ client, tableName });
  const connections = new DynamoDbConnectionStore({ client, tableName });
  const limiter = new DynamoDbRateLimiter({ client, tableName });
  const deps: SyncDeps = {
    connections,
    cipher: options.cipher,
    runs,
    records,
    source: options.source,
    limiter,
    clock,
    logger: options.logger,
    metrics: options.metrics ?? new CountingMetrics(),
    ...(options.pageTasksPerExecution === undefined ? {} : { pageTasksPerExecution: options.pageTasksPerExecution }),
    ...(options.pageTasksPerSegment === undefined ? {} : { pageTasksPerSegment: options.pageTasksPerSegment }),
  };

  const handlers = makeSyncHandlers(deps);
  const engine: LocalSyncEngine = new LocalSyncEngine({
    handlers: options.gates === undefined ? handlers : gateSyncHandlers(handlers, options.gates, { events: (ref) => engine.events(ref), isRunning: (ref) => engine.isRunning(ref), parentOf: (ref) => engine.parentOf(ref) }, options.logger),
    timeScale: options.timeScale,
    ...(options.gates === undefined ? {} : { continueAsNew: (proceed: TaskHandler) => gateContinueAsNew(proceed, options.gates!) }),
  });
  const startDeps: StartSyncDeps = { connections, runs, starter: engine, clock, logger: options.logger };
  return { deps, startDeps, engine, records, runs, connections, limiter, stop: () => engine.stop() };
}
export type LocalSync = ReturnType<typeof createLocalSync>;
