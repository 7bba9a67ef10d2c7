import type { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { dynamoDbAdapters, type DynamoDbAdapters } from "../../adapters/dynamodb/dynamodb-adapters";
import type { Clock, Sleep } from "../../domain/core/ports/clock";
import { systemClock } from "../../domain/core/ports/clock";
import type { Logger } from "../../domain/core/ports/logger";
import type { Metrics } from "../../domain/core/ports/metrics";
import type { SourceClient } from "../../domain/core/ports/source-client";
import type { TokenCipher } from "../../domain/core/ports/token-cipher";
import { CountingMetrics } from "../../adapters/local/counting-metrics";
import { logEventPublisher } from "../../adapters/local/log-event-publisher";
import { notifyingPublisher } from "../../domain/notifications/notifying-publisher";
import { scheduleIntervalMs } from "../../domain/sync/schedule-interval";
import { purgeDeletedConnections, type PurgeDeps, type PurgeResult } from "../../domain/retention/purge-deleted-connections";
import { makeSyncHandlers, type SyncHandlers } from "../../handlers/sync/sync-handlers";
import type { StartSyncDeps, SyncDeps } from "../../domain/sync/sync-deps";
import { LocalSyncEngine } from "./local-sync-engine";
import type { TaskHandler } from "./step-functions/local-step-functions";
import { loadOrCreateSigningKey, type LocalSigningKey } from "./local-token-issuer";
import { makeApiHandler } from "../../handlers/http/api-handler";
import type { ApiDeps } from "../../domain/analytics/analytics-deps";
import { failUnfinishedPreflight } from "../../domain/preflight/preflight-failure";
import { runPreflightJob } from "../../domain/preflight/preflight-job";
import { createHttpSourceClient } from "../../adapters/source-http/http-source-client";
import { createGuardedFetch } from "../../adapters/source-http/ssrf/guarded-fetch";
import { baseUrlPolicy } from "../../adapters/source-http/ssrf/base-url-policy";
import { dynamoDbKeySpace } from "../../adapters/dynamodb/dynamodb-key-space";
import { startApiGatewayServer, type LambdaHandler, type LocalApiServer } from "./api-gateway-server";
import { createCrashGates, gateContinueAsNew, gateDynamoDbClient, gateSourceClient, gateSyncHandlers, type CrashGates } from "./crash-gates";
import { InProcessPreflightLauncher } from "../../adapters/local/in-process-preflight-launcher";
import { createLocalDispatch, type LocalDispatch } from "./local-dispatch";
import type { LocalOidcSettings } from "./oidc-token-verifier";
import { InProcessManagerRefresher } from "../../adapters/local/in-process-manager-refresher";
import { refreshManagers } from "../../domain/analytics/refresh-managers";
import type { WebhookSender } from "../../domain/webhooks/webhook-ports";
import { createHttpWebhookSender } from "../../adapters/webhook-http/http-webhook-sender";
import { bothWays, LocalWebhooks } from "./local-webhooks";
import { webhookUrlPolicy } from "../../adapters/source-http/ssrf/base-url-policy";

/**
 * The local runtime's one composition root: every client, store and handler
 * of `npm start` (and of the tests' harnesses) is built here, once, from the
 * DynamoDB client and settings the caller gives. local-runtime.ts owns the
 * process around it (DynamoDB Local, the data directory, the listener, the
 * timers that fire the jobs); the engines are local-sync-engine.ts and
 * local-dispatch.ts.
 */

/** The sync, whole, on one machine: its stores, the Task handlers' deps and both state machines' engine. */
export interface LocalSync {
  readonly deps: SyncDeps;
  /** What starting a run needs (the API, the schedule tick, tests): its starter is `engine`. */
  readonly startDeps: StartSyncDeps;
  readonly engine: LocalSyncEngine;
  /** The Task handlers the engine runs (instrumented, when asked), for callers that drive them without it (the bench's plain loop). */
  readonly handlers: SyncHandlers;
  /** Every adapter on the table (the API's and the jobs' too), built once here. */
  readonly adapters: DynamoDbAdapters;
  readonly records: DynamoDbAdapters["records"];
  readonly runs: DynamoDbAdapters["runs"];
  readonly connections: DynamoDbAdapters["connections"];
  readonly limiter: DynamoDbAdapters["limiter"];
  /** The connection's figures, kept at each run's end. */
  readonly figures: DynamoDbAdapters["figures"];
  /** The per-manager aggregates, links and members (docs/analytics-api.md). */
  readonly managers: DynamoDbAdapters["managers"];
  /** Recomputes them after each run's end, in this process; tests wait on its `idle()`. */
  readonly managerRefresher: InProcessManagerRefresher;
  /** The events' deliveries to the workspaces' endpoints: `sweep()` sends what is due, tests wait on `idle()`. */
  readonly webhooks: LocalWebhooks;
  stop(): Promise<void>;
}

/** The service on one machine: the sync and the onboarding API over the same stores. */
export interface LocalService {
  readonly sync: LocalSync;
  readonly onboarding: ApiDeps;
  readonly preflightLauncher: InProcessPreflightLauncher;
  readonly signingKey: LocalSigningKey;
  readonly apiHandler: LambdaHandler;
  /** Serves the onboarding API like API Gateway would. */
  listen(port: number, host?: string): Promise<LocalApiServer>;
}

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
  /** SCHEDULE as configured: its interval sets the default freshness_hours. */
  readonly schedule?: string;
  readonly pageTasksPerExecution?: number;
  readonly pageTasksPerSegment?: number;
  /** Fetch ahead, commit in order (SyncDeps.fetchAhead); off when absent. */
  readonly fetchAhead?: boolean;
  /** Test hook (CRASH_GATES): the Task handlers announce their points and wait for the control server. */
  readonly gates?: CrashGates;
  /** Sends the webhooks' deliveries; by default node's fetch through the SSRF guard with loopback refused. */
  readonly webhookSender?: WebhookSender;
  /**
   * False: events are not handed to the webhooks. For what measures a run's own reads and writes (the sync harness):
   * in AWS the webhooks are a function of their own, whose reads are not the run's. True when unset.
   */
  readonly deliverWebhooks?: boolean;
  /** The bench's and the tests' hook: wraps the Task handlers' ports and the handlers before the engine is built (the bench times them; the test harnesses leave out the run-end figures). */
  readonly instrument?: {
    readonly deps?: (deps: SyncDeps) => SyncDeps;
    readonly handlers?: (handlers: SyncHandlers) => SyncHandlers;
  };
}

/**
 * The sync, whole, on one machine: the DynamoDB adapters on DynamoDB Local and
 * the one ASL definition on aws-local-stepfunctions, with the same Task
 * handlers the Lambdas run. Used by the local runtime and the tests.
 */
export function createLocalSync(options: LocalSyncOptions): LocalSync {
  const { client, tableName } = options;
  const clock = options.clock ?? systemClock;
  const adapters = dynamoDbAdapters({ client, tableName });
  const { records, runs, connections, limiter, managers } = adapters;
  const managerRefresher = new InProcessManagerRefresher(
    (job) => refreshManagers({ scan: adapters.recordScan, managers, clock, logger: options.logger }, job),
    options.logger,
  );
  const webhooks = new LocalWebhooks({
    webhooks: adapters.webhooks,
    changes: adapters.changes,
    sender: options.webhookSender ?? createHttpWebhookSender({ allowLoopback: false }),
    cipher: options.cipher,
    clock,
    logger: options.logger,
  });
  const built: SyncDeps = {
    managerRefresher,
    // The same events as in AWS: recorded as notifications, then logged instead of sent to EventBridge, and
    // handed to the webhooks (what the EventBridge rule's target does in AWS).
    events: notifyingPublisher({
      notifications: adapters.notifications,
      out: options.deliverWebhooks === false ? logEventPublisher(options.logger) : bothWays(logEventPublisher(options.logger), webhooks.publisher),
      clock,
      logger: options.logger,
    }),
    scheduleIntervalMs: scheduleIntervalMs(options.schedule),
    connections,
    cipher: options.cipher,
    runs,
    records,
    figures: adapters.figures,
    audits: adapters.audits,
    source: options.source,
    limiter,
    clock,
    logger: options.logger,
    metrics: options.metrics ?? new CountingMetrics(),
    ...(options.pageTasksPerExecution === undefined ? {} : { pageTasksPerExecution: options.pageTasksPerExecution }),
    ...(options.pageTasksPerSegment === undefined ? {} : { pageTasksPerSegment: options.pageTasksPerSegment }),
    ...(options.fetchAhead === undefined ? {} : { fetchAhead: options.fetchAhead }),
  };

  const deps = options.instrument?.deps?.(built) ?? built;
  const made = makeSyncHandlers(deps);
  const handlers = options.instrument?.handlers?.(made) ?? made;
  const engine: LocalSyncEngine = new LocalSyncEngine({
    handlers: options.gates === undefined ? handlers : gateSyncHandlers(handlers, options.gates, { events: (ref) => engine.events(ref), isRunning: (ref) => engine.isRunning(ref), parentOf: (ref) => engine.parentOf(ref) }, options.logger),
    timeScale: options.timeScale,
    ...(options.gates === undefined ? {} : { continueAsNew: (proceed: TaskHandler) => gateContinueAsNew(proceed, options.gates!) }),
  });
  const startDeps: StartSyncDeps = {
    connections,
    runs,
    starter: engine,
    clock,
    logger: options.logger,
    staleCheck: { records, events: deps.events, scheduleIntervalMs: deps.scheduleIntervalMs ?? null },
  };
  return { deps, startDeps, engine, handlers, adapters, records, runs, connections, limiter, figures: adapters.figures, managers, managerRefresher, webhooks, stop: async () => {
    await engine.stop();
    // A refresh a run's end asked for, and the webhooks' attempts, finish before the stores' client goes.
    await managerRefresher.idle();
    await webhooks.idle();
  } };
}

export interface LocalServiceOptions {
  readonly client: DynamoDBClient;
  readonly tableName: string;
  readonly cipher: TokenCipher;
  readonly logger: Logger;
  /** Where the session signing key lives (created on first run). */
  readonly dataDir: string;
  readonly timeScale: number;
  /** Loopback sources are allowed locally by default (demo, tests); private and metadata addresses never are. */
  readonly allowLoopbackSources: boolean;
  /** The source request timeout; defaults to the service's SOURCE_REQUEST_TIMEOUT_MS. */
  readonly sourceTimeoutMs?: number;
  /** Page tasks per execution before ContinueAsNew; defaults to PAGE_TASKS_PER_EXECUTION. */
  readonly pageTasksPerExecution?: number;
  /** FETCH_AHEAD: page N+1's request leaves while page N commits (docs/throughput.md#fetch-ahead); off when absent. */
  readonly fetchAhead?: boolean;
  /** CRASH_GATES: the control server's loopback URL; unset in normal use (docs/crash-consistency.md). */
  readonly crashGatesUrl?: string;
  /** SCHEDULE as configured (`1h`, `off`): each connection shows it; unset, the API answers `schedule: null`. */
  readonly schedule?: string;
  /** The domain's clock (tests drive it); the system clock when unset. */
  readonly clock?: Clock;
  /** How the test call waits before trying its own busy store again (tests pass a manual clock's); real time when unset. */
  readonly sleep?: Sleep;
  /** OIDC_ISSUER and OIDC_CLIENT_ID: the console signs in there (authorization code + PKCE) and the API accepts its tokens. */
  readonly oidc?: LocalOidcSettings;
  /** Sends the webhooks' deliveries; by default node's fetch through the SSRF guard, loopback as for sources (tests pass one with their deadline and resolver). */
  readonly webhookSender?: WebhookSender;
  /** The sync's hook (LocalSyncOptions.instrument): the bench times through it, the API tests leave out the run-end figures with it. */
  readonly instrument?: LocalSyncOptions["instrument"];
}

/**
 * The whole service on one machine: the sync on the local engine and the
 * onboarding API handler, sharing the same stores and the same SSRF-guarded
 * source client. The composition root of the local runtime and the API tests.
 */
export async function createLocalService(options: LocalServiceOptions): Promise<LocalService> {
  const sourceFetch = createGuardedFetch({ allowLoopback: options.allowLoopbackSources });
  const httpSource = createHttpSourceClient({
    fetch: sourceFetch,
    ...(options.sourceTimeoutMs === undefined ? {} : { timeoutMs: options.sourceTimeoutMs }),
  });
  // Test hook only: every gate is a decorator, so without CRASH_GATES nothing here differs.
  const gates = options.crashGatesUrl === undefined ? undefined : createCrashGates(options.crashGatesUrl);
  if (gates !== undefined) gateDynamoDbClient(options.client, gates);
  const source = gates === undefined ? httpSource : gateSourceClient(httpSource, gates);
  const webhookSender = options.webhookSender ?? createHttpWebhookSender({ allowLoopback: options.allowLoopbackSources });
  const sync = createLocalSync({ ...options, source, webhookSender, ...(gates === undefined ? {} : { gates }) });
  const { preflights, notifications } = sync.adapters;
  const preflightLauncher = new InProcessPreflightLauncher(
    (job) =>
      runPreflightJob(
        { connections: sync.connections, cipher: options.cipher, preflights, limiter: sync.limiter, sourceFetch, clock: sync.deps.clock, logger: options.logger },
        job,
      ),
    options.logger,
    (job) => failUnfinishedPreflight({ preflights, clock: sync.deps.clock, logger: options.logger }, job),
  );
  const onboarding: ApiDeps = {
    connections: sync.connections,
    cipher: options.cipher,
    runs: sync.runs,
    records: sync.records,
    figures: sync.figures,
    history: sync.adapters.history,
    changes: sync.adapters.changes,
    audits: sync.deps.audits,
    source,
    limiter: sync.limiter,
    starter: sync.engine,
    clock: sync.deps.clock,
    logger: options.logger,
    preflights,
    preflightLauncher,
    notifications,
    baseUrls: baseUrlPolicy({ allowLoopback: options.allowLoopbackSources }),
    keySpace: dynamoDbKeySpace,
    managers: sync.managers,
    webhooks: sync.adapters.webhooks,
    webhookUrls: webhookUrlPolicy({ allowLoopback: options.allowLoopbackSources }),
    ...(options.schedule === undefined ? {} : { schedule: options.schedule }),
    ...(options.sleep === undefined ? {} : { sleep: options.sleep }),
  };
  const signingKey = await loadOrCreateSigningKey(options.dataDir);
  const apiHandler = makeApiHandler(onboarding);

  return {
    sync,
    onboarding,
    preflightLauncher,
    signingKey,
    apiHandler,
    /** Serves the onboarding API like API Gateway would. */
    listen: (port: number, host?: string) =>
      startApiGatewayServer({
        port,
        ...(host === undefined ? {} : { host }),
        handler: apiHandler,
        signingKey,
        ...(options.oidc === undefined ? {} : { oidc: options.oidc }),
      }),
  };
}

/** What `npm start` runs on timers beside the service, over the sync's stores. */
export interface LocalJobs {
  /** The schedule tick: what SCHEDULE fires. */
  readonly dispatch: LocalDispatch;
  /** One run of the purge of deleted connections' data (hourly, docs/retention.md). */
  purge(): Promise<PurgeResult>;
  /** Aborts the tick's executions between states; a page task already running finishes its write first. */
  stop(): Promise<void>;
}

export interface LocalJobsOptions {
  /** MAX_CONCURRENT_RUNS: the cap on concurrent runs, as context maxConcurrentRuns sets it in AWS. */
  readonly maxConcurrentRuns: number;
  readonly timeScale: number;
  readonly logger: Logger;
}

/** The schedule tick on the dispatch definition's own engine (calling the sync's), and the purge. */
export function createLocalJobs(sync: LocalSync, options: LocalJobsOptions): LocalJobs {
  const dispatch = createLocalDispatch({
    startDeps: sync.startDeps,
    integrations: sync.engine.integrations,
    maxConcurrentRuns: options.maxConcurrentRuns,
    timeScale: options.timeScale,
    logger: options.logger,
  });
  const purgeDeps: PurgeDeps = {
    purges: sync.adapters.purges,
    connections: sync.connections,
    clock: sync.deps.clock,
    logger: options.logger,
  };
  return { dispatch, purge: () => purgeDeletedConnections(purgeDeps), stop: () => dispatch.stop() };
}
