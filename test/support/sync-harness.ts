import { randomBytes } from "node:crypto";
import { afterAll, beforeAll } from "vitest";
import type { Clock } from "../../lambdas/domain/core/ports/clock";
import type { RunSummary } from "../../lambdas/domain/core/run-summary";
import type { SourceClient } from "../../lambdas/domain/core/ports/source-client";
import type { StoredConnection } from "../../lambdas/domain/core/connection";
import type { TokenCipher } from "../../lambdas/domain/core/ports/token-cipher";
import { AesGcmTokenCipher } from "../../lambdas/adapters/local/aes-token-cipher";
import { createLocalSync } from "../../lambdas/runtimes/local/local-composition";
import { WITHOUT_RUN_END_FIGURES } from "./run-end-figures";
import { CountingMetrics } from "../../lambdas/adapters/local/counting-metrics";
import { createMemoryLogger } from "../../lambdas/adapters/local/json-logger";
import { createHttpSourceClient } from "../../lambdas/adapters/source-http/http-source-client";
import { startSync } from "../../lambdas/domain/sync/start-sync";
import type { StartSyncDeps } from "../../lambdas/domain/sync/sync-deps";
import type { LocalSyncEngine } from "../../lambdas/runtimes/local/local-sync-engine";
import { encryptedConnection } from "../builders/stored-connections";
import { createTestTable, testDynamoDbClient } from "./dynamodb";
import { runSettled, runWaitSeconds } from "./run-settled";

export type SyncHarness = Awaited<ReturnType<typeof createSyncHarness>>;
type SyncHarnessOptions = Parameters<typeof createSyncHarness>[0];

/** One harness for this test file: made before its tests, closed after them; read it inside a test or hook. */
export function useSyncHarness(options?: SyncHarnessOptions): () => SyncHarness {
  let harness: SyncHarness | undefined;
  beforeAll(async () => {
    harness = await createSyncHarness(options);
  });
  afterAll(async () => {
    await harness?.close();
  });
  return () => {
    if (harness === undefined) throw new Error("the sync harness is made in beforeAll: read it inside a test or hook");
    return harness;
  };
}

/**
 * The whole sync on real engines: DynamoDB Local, the one ASL definition on
 * aws-local-stepfunctions, the real HTTP source client. Waits are scaled
 * (TIME_SCALE) so a retry ladder of 31 s takes a fraction of a second; tests
 * read the waits the state machine asked for from the engine (waitsOf), never
 * from the clock.
 */
export async function createSyncHarness(
  options: {
    timeScale?: number;
    pageTasksPerExecution?: number;
    /** Fetch ahead, commit in order (SyncDeps.fetchAhead): on by default, as in the local runtime. */
    fetchAhead?: boolean;
    /** What the page tasks decrypt through (e.g. the AWS composition's per-process cache); the bare cipher by default. */
    wrapCipher?: (cipher: TokenCipher) => TokenCipher;
    /** The source request time-out; a test that holds requests at a gate sets it far above how long it holds them. */
    sourceTimeoutMs?: number;
    /** The domain's clock (run times, data_as_of, staleness); the system clock by default. The rate limiter keeps real time. */
    clock?: Clock;
    /** SCHEDULE as configured: its interval sets the default freshness_hours (unset: never stale). */
    schedule?: string;
    /**
     * True: a run's end keeps the figures (funnel, managers) as the service does. Off by default (./run-end-figures.ts):
     * they are tested through the API files that read them and the console's end-to-end tests, and they cost a quarter
     * of a sync test's time.
     */
    runEndFigures?: boolean;
  } = {},
) {
  const client = testDynamoDbClient();
  const tableName = await createTestTable(client);
  const cipher = new AesGcmTokenCipher(randomBytes(32));
  const logger = createMemoryLogger();
  /** What the Task handlers counted (pages, records, throttles, retries, failures): the local twin of the EMF metrics. */
  const metrics = new CountingMetrics();
  const http = createHttpSourceClient({ timeoutMs: options.sourceTimeoutMs ?? 2_000 });
  /**
   * Every request the page tasks send, with Date.now() at the moment it is
   * handed to the HTTP client: the clock the rate limiter and rateLimited
   * decide with, read synchronously right after their check, so the rate rule
   * can be checked on these times without measuring anything at the source.
   */
  const sent: SentRequest[] = [];
  const source: SourceClient = {
    fetchPage(connection, request) {
      sent.push({ at: Date.now(), baseUrl: connection.baseUrl, token: connection.token, path: request.path, page: request.page });
      return http.fetchPage(connection, request);
    },
  };
  const local = createLocalSync({
    client,
    tableName,
    cipher: options.wrapCipher?.(cipher) ?? cipher,
    logger,
    metrics,
    source,
    timeScale: options.timeScale ?? 0.01,
    ...(options.pageTasksPerExecution === undefined ? {} : { pageTasksPerExecution: options.pageTasksPerExecution }),
    fetchAhead: options.fetchAhead ?? true,
    ...(options.clock === undefined ? {} : { clock: options.clock }),
    ...(options.schedule === undefined ? {} : { schedule: options.schedule }),
    ...(options.runEndFigures !== true ? { instrument: WITHOUT_RUN_END_FIGURES } : {}),
    // A run's own reads and writes, as in AWS, where the webhooks' deliveries are a function of their own (the API harness composes them).
    deliverWebhooks: false,
  });

  async function addConnection(input: {
    baseUrl: string;
    token: string;
    rateLimit?: number;
    syncSince?: string;
    accountId?: string;
  }): Promise<StoredConnection> {
    const connection = await encryptedConnection(cipher, input.token, {
      business_account_id: input.accountId ?? "acct-1",
      base_url: input.baseUrl,
      rate_limit: input.rateLimit ?? 1000,
      sync_since: input.syncSince ?? "2026-01-01T00:00:00.000Z",
    });
    await local.connections.put(connection);
    return connection;
  }

  /**
   * The run's summary once its executions have ended (a gate on the engine, not a poll) and the work its end
   * asked for in this process (the managers' refresh) is done, so nothing of this run lands in what a test counts next.
   */
  async function waitForRun(connectionId: string, runId: string): Promise<RunSummary> {
    const summary = await runSettled(local.engine, local.runs, connectionId, runId);
    await local.managerRefresher.idle();
    return summary;
  }

  /** The waits (s) the state machine asked for during the run, in order: backoff and Retry-After alike. */
  function waitsOf(runId: string): number[] {
    return runWaitSeconds(local.engine, runId);
  }

  /** Starts a sync and waits for its run summary to settle. */
  async function sync(connection: StoredConnection): Promise<RunSummary> {
    const { runId, started } = await startSync(local.startDeps, connection);
    if (!started) throw new Error(`a run was already in progress: ${runId}`);
    return waitForRun(connection.id, runId);
  }

  /**
   * Page commits as they resolve: with fetch ahead, page N+1's request can
   * arrive while page N still commits, so a test that holds a request waits on
   * this for the commit before it (pageCommitted).
   */
  const commitListeners = new Set<(run: { entity: string; page: number }) => void>();
  const commitPage = local.records.commitPage.bind(local.records);
  local.records.commitPage = async (input) => {
    const out = await commitPage(input);
    for (const listener of commitListeners) listener(input.run);
    return out;
  };
  /** Opens once a page of `entity` numbered `page` has committed, in any run, from now on. */
  function pageCommitted(entity: string, page: number): Promise<void> {
    return new Promise((resolve) => {
      const listener = (run: { entity: string; page: number }) => {
        if (run.entity !== entity || run.page !== page) return;
        commitListeners.delete(listener);
        resolve();
      };
      commitListeners.add(listener);
    });
  }

  async function listAll(connectionId: string, collection: Parameters<typeof local.records.listRecords>[1]) {
    const out: Record<string, unknown>[] = [];
    let cursor: string | null = null;
    do {
      const page = await local.records.listRecords(connectionId, collection, { limit: 1000, cursor });
      out.push(...page.records);
      cursor = page.nextCursor;
    } while (cursor !== null);
    return out;
  }

  return {
    ...local,
    /** The DynamoDB client every adapter of the sync sends through (a test may add middleware to it), and its table. */
    client,
    tableName,
    cipher,
    logger,
    metrics,
    sent,
    addConnection,
    waitForRun,
    waitsOf,
    sync,
    listAll,
    pageCommitted,
    close: async () => {
      await local.stop();
      client.destroy();
    },
  };
}

/**
 * Syncs `connection` on a test's own engine (Task handlers replaced, a store
 * made busy) over the harness's stores: the summary once the run has settled;
 * the engine is stopped either way.
 */
export async function syncOnEngine(
  harness: SyncHarness,
  engine: LocalSyncEngine,
  connection: StoredConnection,
  startDeps: StartSyncDeps = harness.startDeps,
): Promise<RunSummary> {
  try {
    const { runId } = await startSync({ ...startDeps, starter: engine }, connection);
    return await runSettled(engine, harness.runs, connection.id, runId);
  } finally {
    await engine.stop();
  }
}

export interface SentRequest {
  readonly at: number;
  readonly baseUrl: string;
  readonly token: string;
  readonly path: string;
  readonly page: number;
}

export function entityRow(summary: RunSummary, entity: string) {
  return summary.entities.find((row) => row.entity === entity);
}
