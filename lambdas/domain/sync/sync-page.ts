import { SourceNotImplementedError, SourceThrottledError, SourceTransientError, SyncError } from "../core/errors";
import { MAX_PAGES_PER_ENTITY, MAX_RETRY_AFTER_SECONDS } from "../core/limits";
import { METRIC } from "../core/metric-names";
import { entityDefinition } from "../source-contract/entity-catalog";
import { ingestPage } from "../ingestion/ingest-page";
import { auditPage } from "../audits/audit-page";
import type { FetchPageDeps, PageInput } from "../ingestion/fetch-and-prepare";
import type { SourceClient, SourcePage } from "../core/ports/source-client";
import { pageKindOf } from "../core/run-mode";
import { finishEntityAndAdvance, handOverIfContinuing, leaseUntil, nextPageStep, segmentStartsPages, type EntityStartConnection } from "./entity-steps";
import { aheadOf, answerOf, answers, isRetriedAnswer, startEarly, type AheadRequest, type EarlyFetch, type EarlyOutcome } from "./fetch-ahead";
import { readPageConnection } from "./page-connection";
import { requestPage } from "./page-request";
import { recordRetryWait, recordThrottleWait, retryRecorded } from "./record-wait";
import type { StoredConnection } from "../core/connection";
import { rateRetryAfterMax, sourceReachable } from "../source-contract/rules/failure-rules";
import type { SyncDeps } from "./sync-deps";
import type { SyncCursor, SyncState } from "./sync-state";

/**
 * The page task: one page of the current entity, under the connection's rate
 * limit. A 429 comes back as data (the state machine chooses the wait); a
 * 404 from an optional endpoint is the entity's success with 0 records; any
 * other failure is thrown by name for the state machine's Retry and Catch.
 * The page's commit carries the run's fence, lease and progress (no separate
 * heartbeat): a run that lost its connection's lock writes nothing.
 *
 * Each request reads the connection right before it, while it takes its
 * rate-limit slot at the rate the previous read saw (page-request.ts): a
 * rotated token is used from the request whose read first sees it, a changed
 * rate_limit from the one after, and a deleted connection stops the run
 * before its request. The read is eventually consistent, with strong reads
 * where staleness could stop a live run (page-connection.ts).
 *
 * Fetched ahead (deps.fetchAhead; fetch-ahead.ts): once this page's envelope
 * says has_more, the next page's request leaves while this one is validated
 * and committed, and its answer goes to the next task in the state. A page
 * that came so is validated and committed here exactly as a fetched one.
 * The early request leaves only while its segment may still start a page
 * (`segmentStartedAt`, segmentStartsPages): past SEGMENT_PAGE_START_SECONDS
 * the next page belongs to the next segment, so it would be waste, and the
 * page in flight keeps its room inside Express's 5 minutes.
 */
export async function syncPage(deps: SyncDeps, state: SyncState, segmentStartedAt?: string): Promise<SyncState> {
  const { run } = state;
  const cursor = requireCursor(state);
  const steps = cursor.steps + 1;
  // Decided once, here: a sync's page writes records, watermark and listing; an audit's only what it heals.
  const kind = pageKindOf(run.run_id, cursor.entity);
  // The connection as this page's request read it (or, for a page that came ahead, as its early request read it).
  let connection: StoredConnection | undefined;
  const handed = state.step.outcome === "next_page" ? state.step.ahead : undefined;
  let ahead = kind.mode === "sync" && answers(handed, cursor) ? handed : undefined;
  const startConnection = async (): Promise<EntityStartConnection> => connection ?? ahead?.connection ?? (connection = await readPageConnection(deps, run));
  // A 5xx or time-out handed on is the page's first try: thrown once; the Retry's re-runs request the page themselves.
  if (ahead !== undefined && isRetriedAnswer(ahead) && (await retryRecorded(deps, run, cursor))) ahead = undefined;
  const fetchesAhead =
    deps.fetchAhead === true &&
    kind.mode === "sync" &&
    cursor.page < MAX_PAGES_PER_ENTITY &&
    nextPageStep(deps, { ...cursor, steps }).outcome === "next_page" &&
    segmentStartsPages(segmentStartedAt, deps.clock.now());
  // Asked again right before the early request leaves (after its slot), as a failed page N is.
  const pastLastStart = () => !segmentStartsPages(segmentStartedAt, deps.clock.now());
  let early: EarlyFetch | undefined;
  const nextRequest = { entity: cursor.entity, page: cursor.page + 1, updated_since: cursor.updated_since };

  const source: SourceClient = {
    async fetchPage(_resolvedPerRequest, request) {
      let page: SourcePage;
      if (ahead !== undefined) {
        page = answerOf(ahead);
      } else {
        // The connection is kept as read, even when the request then fails (a 404's entity end needs it).
        const requested = await requestPage(deps, run, cursor.rate_limit, request, undefined, (read) => {
          connection = read;
        });
        page = requested.page;
      }
      if (page.hasMore && fetchesAhead) {
        // Page N+1's request leaves now, within its own slot, while this page is validated and committed.
        const rate = connection?.rate_limit ?? cursor.rate_limit;
        early = startEarly((cancelled, read) =>
          requestPage(deps, run, rate, { ...request, page: request.page + 1 }, () => cancelled() || pastLastStart(), read),
        );
      }
      return page;
    },
  };
  const pageDeps: FetchPageDeps = {
    source,
    store: deps.records,
    logger: deps.logger,
    ...(deps.stageKinds === undefined ? {} : { stageKinds: (id: string) => deps.stageKinds!(id, run.run_id) }),
    ...(deps.userIds === undefined ? {} : { userIds: (id: string) => deps.userIds!(id, run.run_id) }),
  };
  const input: Omit<PageInput, "entity"> = {
    connectionId: run.connection_id,
    page: cursor.page,
    updatedSince: cursor.updated_since,
    watermark: cursor.watermark,
    previous: cursor.previous,
    run: { runId: run.run_id, ...pageTimes(deps.clock.now()) },
    ...(cursor.finding_samples === undefined ? {} : { findingSamples: cursor.finding_samples }),
    // The connection's setting as this page's request read it (or, for a page that came ahead, as its early request did).
    stageEventType: () => connection?.stage_event_type ?? ahead?.connection.stage_event_type ?? null,
  };
  // The page source reads the connection and its token right before each request (page-request.ts).
  const perRequest = { baseUrl: "", token: "" };

  let page;
  try {
    page =
      kind.mode === "audit"
        ? await auditPage({ ...pageDeps, audits: deps.audits }, perRequest, { ...input, entity: kind.entity, at: deps.clock.now().toISOString() })
        : await ingestPage(pageDeps, perRequest, { ...input, entity: kind.entity });
  } catch (error) {
    // Page N failed or its commit was refused: nothing of N+1 is committed, and its request is not sent if it has not left.
    (early as EarlyFetch | undefined)?.cancel();
    if (error instanceof SourceThrottledError && error.retryAfterSeconds > MAX_RETRY_AFTER_SECONDS) {
      // Waiting that long would hold the connection's run for hours: fail the entity now; the next run resumes it.
      throw new SourceThrottledError(
        `the source asked to wait ${error.retryAfterSeconds} s (Retry-After); the service waits at most ${MAX_RETRY_AFTER_SECONDS} s, so the entity failed and the next run resumes it from its watermark. ${error.detail}`,
        error.retryAfterSeconds,
        { rule: rateRetryAfterMax.id },
      );
    }
    if (error instanceof SourceThrottledError) {
      deps.metrics.count(METRIC.pagesThrottled, 1, { entity: cursor.entity });
      deps.logger.warn("page throttled", {
        connection_id: run.connection_id,
        run_id: run.run_id,
        entity: cursor.entity,
        page: cursor.page,
        retry_after_seconds: error.retryAfterSeconds,
        attempt: cursor.throttle_attempts + 1,
      });
      await recordThrottleWait(deps, run, cursor, error);
      return {
        run,
        cursor: { ...cursor, throttle_attempts: cursor.throttle_attempts + 1, steps },
        step: { outcome: "throttled", retry_after_seconds: error.retryAfterSeconds, detail: error.detail },
      };
    }
    if (error instanceof SyncError && error.retryable) {
      // The state machine's Retry block re-runs this task after its backoff; say so, since nothing else will.
      deps.logger.warn("page request failed; the state machine retries it", {
        connection_id: run.connection_id,
        run_id: run.run_id,
        entity: cursor.entity,
        page: cursor.page,
        error: `${error.name}: ${error.detail}`,
      });
      if (error instanceof SourceTransientError && (await recordRetryWait(deps, run, cursor, error)).sourceDown) {
        // No try of this page reached the source: EntityFailed fails the entities after it at once (docs/state-machine.md).
        throw new SourceTransientError(error.detail, { rule: sourceReachable.id, sourceDown: true });
      }
    }
    if (error instanceof SourceNotImplementedError && !entityDefinition(cursor.entity).required) {
      deps.logger.info("optional endpoint not implemented (404): 0 records", {
        connection_id: run.connection_id,
        run_id: run.run_id,
        entity: cursor.entity,
      });
      return handOverIfContinuing(
        deps,
        await finishEntityAndAdvance(deps, run, { ...cursor, steps }, { status: "succeeded" }, await startConnection()),
      );
    }
    throw error;
  }
  deps.metrics.count(METRIC.pagesSynced, 1, { entity: cursor.entity });
  deps.metrics.count(METRIC.recordsSynced, page.records, { entity: cursor.entity });
  if (page.stages > 0) deps.metrics.count(METRIC.recordsSynced, page.stages, { entity: "stages" });

  if (page.hasMore) {
    const settled = await (early as EarlyFetch | undefined)?.settled;
    const rateLimit = (settled?.connection ?? connection)?.rate_limit ?? cursor.rate_limit;
    const nextCursor: SyncCursor = {
      ...cursor,
      page: cursor.page + 1,
      watermark: page.watermark,
      previous: page.fingerprint,
      ...(Object.keys(page.findingSamples).length > 0 ? { finding_samples: page.findingSamples } : {}),
      ...(rateLimit === undefined ? {} : { rate_limit: rateLimit }),
      throttle_attempts: 0,
      steps,
    };
    const next: SyncState = { run, cursor: nextCursor, step: nextPageStep(deps, nextCursor) };
    return handOverIfContinuing(deps, settled === undefined ? next : withAhead(deps, next, settled, nextRequest));
  }
  return handOverIfContinuing(
    deps,
    await finishEntityAndAdvance(
      deps,
      run,
      { ...cursor, page: cursor.page + 1, steps },
      { status: "succeeded" },
      await startConnection(),
    ),
  );
}

/** The next task's state with the early answer in it, unless it is no answer or does not fit (its task then requests it). */
function withAhead(deps: SyncDeps, next: SyncState, settled: EarlyOutcome, request: AheadRequest): SyncState {
  if (next.step.outcome !== "next_page") return next;
  const handed = aheadOf(settled, request, Buffer.byteLength(JSON.stringify(next), "utf8"));
  if ("ahead" in handed) return { ...next, step: { ...next.step, ahead: handed.ahead } };
  if (handed.dropped !== "not-an-answer") {
    // The page is fetched again by its own task: one request of waste, said in the log.
    deps.logger.warn("the page fetched ahead is not handed on; its task requests it again", {
      connection_id: next.run.connection_id,
      run_id: next.run.run_id,
      entity: request.entity,
      page: request.page,
      reason: handed.dropped,
    });
  }
  return next;
}

/** The page's lease and commit time, from one reading of the clock. */
function pageTimes(now: Date): { leaseUntil: string; committedAt: string } {
  return { leaseUntil: leaseUntil(now), committedAt: now.toISOString() };
}

function requireCursor(state: SyncState): SyncCursor {
  if (state.cursor === null) throw new TypeError("the page task was called without a cursor");
  return state.cursor;
}
