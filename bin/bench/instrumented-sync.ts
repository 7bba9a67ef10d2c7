import { randomBytes, randomUUID } from "node:crypto";
import { subscribe } from "node:diagnostics_channel";
import { performance } from "node:perf_hooks";
import { SyncError } from "../../lambdas/domain/core/errors";
import type { Logger } from "../../lambdas/domain/core/ports/logger";
import type { RateLimiter } from "../../lambdas/domain/core/ports/rate-limiter";
import type { RecordStore } from "../../lambdas/domain/core/ports/record-store";
import type { RunSummary } from "../../lambdas/domain/core/run-summary";
import type { SourceClient } from "../../lambdas/domain/core/ports/source-client";
import type { StoredConnection } from "../../lambdas/domain/core/connection";
import { AesGcmTokenCipher } from "../../lambdas/adapters/local/aes-token-cipher";
import { createLocalSync } from "../../lambdas/runtimes/local/local-composition";
import { dynamoDbAdapters } from "../../lambdas/adapters/dynamodb/dynamodb-adapters";
import { createHttpSourceClient } from "../../lambdas/adapters/source-http/http-source-client";
import { createGuardedFetch } from "../../lambdas/adapters/source-http/ssrf/guarded-fetch";
import { leaseUntil } from "../../lambdas/domain/sync/entity-steps";
import type { SyncHandlers } from "../../lambdas/handlers/sync/sync-handlers";
import { newRunId } from "../../lambdas/domain/sync/run-id";
import { startSync } from "../../lambdas/domain/sync/start-sync";
import type { RunMode } from "../../lambdas/domain/core/run-mode";
import type { SyncState } from "../../lambdas/domain/sync/sync-state";
import { benchClient, discardingLogger, sleep } from "./bench-env";
import { limiterCallsMs, timeDynamoDbCalls } from "./dynamodb-call-timing";
import type { PageSample, TaskSample } from "./page-sample";

/**
 * The local sync (createLocalSync: the real stores on DynamoDB Local, the real
 * HTTP source client, the one ASL definition on aws-local-stepfunctions),
 * timed from the outside only:
 *
 * - the SourceClient handed to createLocalSync times each fetchPage (the HTTP
 *   request and the envelope parsing, nothing else);
 * - through createLocalSync's `instrument` hook, the rate limiter and the
 *   record store are wrapped to time acquire() and commitPage(), and the Task
 *   handlers so that each page task has a start and an end; its one engine
 *   runs them, so nothing of the app is wired here;
 * - a middleware on the DynamoDB client times every DynamoDB call.
 *
 * Page tasks run one at a time, so every timing lands on the page task in
 * progress. The run summary is polled through a second client, so the polls
 * are not counted as the service's DynamoDB time.
 */


export interface SyncMeasurement {
  readonly summary: RunSummary;
  readonly pages: readonly PageSample[];
  readonly tasks: readonly TaskSample[];
  /** performance.now() when the sync was asked to start and when its end was seen. */
  readonly requestedAt: number;
  readonly settledAt: number;
}

export interface InstrumentedSyncOptions {
  readonly endpoint: string;
  readonly tableName: string;
  /** Page tasks per Express segment; the service's PAGE_TASKS_PER_SEGMENT when unset (smoke runs cross a boundary in a few pages). */
  readonly pageTasksPerSegment?: number;
  /** The service's logger; by default one that writes nowhere and only counts its lines. */
  readonly logger?: Logger;
}

export function createInstrumentedSync(options: InstrumentedSyncOptions) {
  const client = benchClient(options.endpoint);
  const pollClient = benchClient(options.endpoint);
  const cipher = new AesGcmTokenCipher(randomBytes(32));
  const counting = discardingLogger();
  const logger = options.logger ?? counting;

  let current: PageSample | null = null;
  let pages: PageSample[] = [];
  let tasks: TaskSample[] = [];

  timeDynamoDbCalls(client, {
    call(ms, label, startedAt) {
      if (current === null) return;
      current.ddbMs += ms;
      current.ddbCalls += 1;
      // The second call of a kind gets "#2"; any later one "#3+" (stale slots re-taken under load, mostly).
      const same = current.calls.filter((call) => call.label.startsWith(label)).length;
      const nth = same === 0 ? "" : same === 1 ? " #2" : " #3+";
      current.calls.push({ label: `${label}${nth}`, offsetMs: startedAt - current.startedAt, ms });
    },
    roundTrip() {
      if (current !== null) current.ddbRoundTrips += 1;
    },
    busy(ms) {
      if (current !== null) current.ddbBusyMs += ms;
    },
  });

  // The moment the page's request is written to the socket (undici publishes it synchronously before the write).
  subscribe("undici:client:sendHeaders", () => {
    if (current !== null && current.sentAtEpoch !== null && current.writtenAtEpoch === null) current.writtenAtEpoch = Date.now();
  });

  // The same transport the local service uses (createLocalService): the SSRF guard, loopback allowed.
  const http = createHttpSourceClient({ fetch: createGuardedFetch({ allowLoopback: true }) });
  const source: SourceClient = {
    async fetchPage(connection, request) {
      const page = current;
      const started = performance.now();
      if (page !== null && page.fetchOffsetMs === 0) {
        page.fetchOffsetMs = started - page.startedAt;
        page.sentAtEpoch = Date.now();
      }
      try {
        const result = await http.fetchPage(connection, request);
        if (page !== null) {
          page.records = result.data.length;
          page.hasMore = result.hasMore;
        }
        return result;
      } finally {
        if (page !== null) page.fetchMs += performance.now() - started;
      }
    },
  };

  const timedLimiter = (limiter: RateLimiter): RateLimiter => ({
    async acquire(connectionId, requestsPerSecond, acquireOptions) {
      const page = current;
      const started = performance.now();
      const callsBefore = page?.calls.length ?? 0;
      try {
        const slot = await limiter.acquire(connectionId, requestsPerSecond, acquireOptions);
        if (page !== null) page.slotAt = slot;
        return slot;
      } finally {
        if (page !== null) {
          page.acquires += 1;
          page.acquireMs += performance.now() - started;
          // Only the limiter's own calls: the connection read runs at the same time and is not the limiter's.
          page.acquireDdbMs += limiterCallsMs(page.calls.slice(callsBefore));
        }
      }
    },
  });
  const timedRecords = (store: RecordStore): RecordStore => ({
    getWatermark: (connectionId, entity) => store.getWatermark(connectionId, entity),
    resetWatermarks: (connectionId) => store.resetWatermarks(connectionId),
    resetWatermark: (connectionId, entity) => store.resetWatermark(connectionId, entity),
    getStageKinds: (connectionId) => store.getStageKinds(connectionId),
    getRecord: (connectionId, collection, key) => store.getRecord(connectionId, collection, key),
    getFreshness: (connectionId) => store.getFreshness(connectionId),
    getUserIds: (connectionId) => store.getUserIds(connectionId),
    listRecords: (connectionId, collection, listOptions) => store.listRecords(connectionId, collection, listOptions),
    readLeadStages: (connectionId, leadIds) => store.readLeadStages(connectionId, leadIds),
    async commitPage(write) {
      const page = current;
      const started = performance.now();
      try {
        await store.commitPage(write);
      } finally {
        if (page !== null) page.commitMs += performance.now() - started;
      }
    },
  });
  const hooks: HandlerHooks = {
    onPageStart: (state) => {
      const cursor = state.cursor;
      current = {
        entity: cursor?.entity ?? "pipelines",
        page: cursor?.page ?? 0,
        startedAt: performance.now(),
        fetchOffsetMs: 0,
        slotAt: null,
        sentAtEpoch: null,
        writtenAtEpoch: null,
        endedAt: 0,
        records: 0,
        hasMore: false,
        fetchMs: 0,
        acquireMs: 0,
        acquires: 0,
        acquireDdbMs: 0,
        ddbMs: 0,
        ddbCalls: 0,
        ddbBusyMs: 0,
        ddbRoundTrips: 0,
        commitMs: 0,
        calls: [],
        failed: false,
      };
    },
    onPageEnd: (failed) => {
      if (current === null) return;
      current.endedAt = performance.now();
      current.failed = failed;
      pages.push(current);
      current = null;
    },
    onTask: (task) => tasks.push(task),
  };

  // The local composition root, whole: its one engine runs the timed handlers over the timed ports.
  const local = createLocalSync({
    client,
    tableName: options.tableName,
    cipher,
    source,
    logger,
    timeScale: 1,
    ...(options.pageTasksPerSegment === undefined ? {} : { pageTasksPerSegment: options.pageTasksPerSegment }),
    instrument: {
      deps: (built) => ({ ...built, limiter: timedLimiter(built.limiter), records: timedRecords(built.records) }),
      handlers: (made) => timedHandlers(made, hooks),
    },
  });
  const { deps, handlers, startDeps } = local;
  const pollRuns = dynamoDbAdapters({ client: pollClient, tableName: options.tableName }).runs;

  function reset(): void {
    pages = [];
    tasks = [];
    current = null;
  }

  /** A new connection (so nothing is synced yet and every watermark is empty). */
  async function addConnection(input: { baseUrl: string; token: string; rateLimit: number }): Promise<StoredConnection> {
    const id = `conn-${randomUUID()}`;
    const businessAccountId = "bench-account";
    const now = new Date().toISOString();
    const connection: StoredConnection = {
      id,
      business_account_id: businessAccountId,
      crm_type: "custom",
      base_url: input.baseUrl,
      rate_limit: input.rateLimit,
      sync_since: "2020-01-01T00:00:00.000Z",
      created_at: now,
      updated_at: now,
      token_ciphertext: await cipher.encrypt(input.token, { businessAccountId, connectionId: id }),
    };
    await local.connections.put(connection);
    return connection;
  }

  /** (a) A normal sync (or, mode `audit`, an audit): startSync, the state machine drives the page tasks; waits for the run summary to settle. */
  async function syncWithStateMachine(connection: StoredConnection, pollMs = 100, mode: RunMode = "sync"): Promise<SyncMeasurement> {
    reset();
    const requestedAt = performance.now();
    const { runId, started } = await startSync(startDeps, connection, { mode });
    if (!started) throw new Error(`a run was already in progress for ${connection.id}`);
    for (;;) {
      const summary = await pollRuns.get(connection.id, runId);
      if (summary !== null && summary.status !== "running") {
        return { summary, pages, tasks, requestedAt, settledAt: performance.now() };
      }
      await sleep(pollMs);
    }
  }

  /**
   * (b) The same Task handlers called in a plain loop, as the state machine
   * would on the happy path (no throttling, no failures): BeginRun, SyncPage
   * while the outcome is next_page or next_segment, FinishRun.
   */
  async function syncWithPlainLoop(connection: StoredConnection): Promise<SyncMeasurement> {
    reset();
    const requestedAt = performance.now();
    const now = new Date();
    const runId = newRunId(now);
    const begun = await deps.runs.begin({ connectionId: connection.id, runId, startedAt: now.toISOString(), leaseUntil: leaseUntil(now) });
    if (!begun.started) throw new Error(`a run was already in progress for ${connection.id}`);
    const input = { business_account_id: connection.business_account_id, connection_id: connection.id, run_id: runId };
    let state: SyncState = await handlers.BeginRun({ input, execution_id: `plain-loop:${runId}` });
    for (;;) {
      const outcome = state.step.outcome;
      // A segment's end hands the run back to the Standard parent, which only starts the next segment: nothing to do here.
      if (outcome === "next_page" || outcome === "next_segment") state = await retried(() => handlers.SyncPage(state));
      else if (outcome === "continue_as_new") {
        state = await handlers.BeginRun({ input: { ...input, continuation: state.cursor }, execution_id: `plain-loop:${runId}` });
      } else if (outcome === "done") break;
      else throw new Error(`the plain loop does not handle ${outcome}`);
    }
    await handlers.FinishRun(state);
    const summary = await pollRuns.get(connection.id, runId);
    if (summary === null) throw new Error(`run ${runId} has no summary`);
    return { summary, pages, tasks, requestedAt, settledAt: performance.now() };
  }

  return {
    addConnection,
    syncWithStateMachine,
    syncWithPlainLoop,
    logLines: counting.count,
    async close() {
      await local.stop();
      client.destroy();
      pollClient.destroy();
    },
  };
}
export type InstrumentedSync = ReturnType<typeof createInstrumentedSync>;

/** Attempts of a page in the plain loop: an error the state machine's Retry would retry is retried here too, at once. */
const PLAIN_LOOP_ATTEMPTS = 4;

async function retried<T>(attempt: () => Promise<T>): Promise<T> {
  for (let tries = 1; ; tries += 1) {
    try {
      return await attempt();
    } catch (error) {
      if (!(error instanceof SyncError && error.retryable) || tries >= PLAIN_LOOP_ATTEMPTS) throw error;
    }
  }
}


interface HandlerHooks {
  onPageStart(state: SyncState): void;
  onPageEnd(failed: boolean): void;
  onTask(task: TaskSample): void;
}

function timedHandlers(handlers: SyncHandlers, hooks: HandlerHooks): SyncHandlers {
  const timed =
    <T>(state: string, handler: (event: unknown) => Promise<T>) =>
    async (event: unknown, context?: { readonly executionId?: string }): Promise<T> => {
      const startedAt = performance.now();
      try {
        return await handler(event);
      } finally {
        const executionId = context?.executionId;
        hooks.onTask({ state, startedAt, endedAt: performance.now(), ...(executionId === undefined ? {} : { executionId }) });
      }
    };
  return {
    BeginRun: timed("BeginRun", handlers.BeginRun),
    EntityFailed: timed("EntityFailed", handlers.EntityFailed),
    StopRun: timed("StopRun", handlers.StopRun),
    FinishRun: timed("FinishRun", handlers.FinishRun),
    SyncPage: timed("SyncPage", async (event) => {
      hooks.onPageStart(event as SyncState);
      let failed = true;
      try {
        const next = await handlers.SyncPage(event);
        failed = false;
        return next;
      } finally {
        hooks.onPageEnd(failed);
      }
    }),
  };
}
