import { SourceAuthError, SourceNotImplementedError, SourceThrottledError, SourceTransientError, SyncError } from "../core/errors";
import { MAX_RETRY_AFTER_SECONDS } from "../core/limits";
import { METRIC } from "../core/metric-names";
import { entityDefinition } from "../source-contract/entity-catalog";
import { ingestPage } from "../ingestion/ingest-page";
import { auditPage } from "../audits/audit-page";
import type { FetchPageDeps, PageInput, PageResult } from "../ingestion/fetch-and-prepare";
import { pageKindOf } from "../core/run-mode";
import { rateLimited } from "./rate-limited-source-client";
import { finishEntityAndAdvance, handOverIfContinuing, leaseUntil, nextPageStep } from "./entity-steps";
import { readPageConnection, rotatedConnection } from "./page-connection";
import { recordRetryWait, recordThrottleWait } from "./record-wait";
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
 * Each page reads the connection at its start, while it takes its rate-limit
 * slot at the rate the previous page read: a rotated token is used from the
 * page whose read first sees it, a changed rate_limit from the page after, and
 * a deleted connection stops the run before its request. The read is
 * eventually consistent, with strong reads where staleness could stop a live
 * run (page-connection.ts): so "the read that first sees it" may come a
 * replication lag after the write.
 */
export async function syncPage(deps: SyncDeps, state: SyncState): Promise<SyncState> {
  const { run } = state;
  const cursor = requireCursor(state);
  const steps = cursor.steps + 1;
  // The slot is taken while the connection is read (the rate from the last read): two round trips at once.
  const slot = cursor.rate_limit === undefined ? undefined : deps.limiter.acquire(run.connection_id, cursor.rate_limit);
  slot?.catch(() => undefined);
  let connection = await readPageConnection(deps, run);
  const tokenOf = (stored: StoredConnection) =>
    deps.cipher.decrypt(stored.token_ciphertext, { businessAccountId: run.business_account_id, connectionId: run.connection_id });
  const token = await tokenOf(connection);
  const source = rateLimited(
    deps.source,
    deps.limiter,
    { connectionId: run.connection_id, rateLimit: cursor.rate_limit ?? connection.rate_limit },
    undefined,
    slot,
  );

  // Decided once, here: a sync's page writes records, watermark and listing; an audit's only what it heals.
  const kind = pageKindOf(run.run_id, cursor.entity);
  const pageDeps: FetchPageDeps = {
    source,
    store: deps.records,
    logger: deps.logger,
    ...(deps.stageKinds === undefined ? {} : { stageKinds: (id: string) => deps.stageKinds!(id, run.run_id) }),
    ...(deps.userIds === undefined ? {} : { userIds: (id: string) => deps.userIds!(id, run.run_id) }),
  };
  const ingest = (stored: StoredConnection, sourceToken: string): Promise<PageResult> => {
    const sourceConnection = { baseUrl: stored.base_url, token: sourceToken };
    const input: Omit<PageInput, "entity"> = {
      connectionId: run.connection_id,
      page: cursor.page,
      updatedSince: cursor.updated_since,
      watermark: cursor.watermark,
      previous: cursor.previous,
      run: { runId: run.run_id, ...pageTimes(deps.clock.now()) },
      ...(cursor.finding_samples === undefined ? {} : { findingSamples: cursor.finding_samples }),
    };
    return kind.mode === "audit"
      ? auditPage({ ...pageDeps, audits: deps.audits }, sourceConnection, { ...input, entity: kind.entity, at: deps.clock.now().toISOString() })
      : ingestPage(pageDeps, sourceConnection, { ...input, entity: kind.entity });
  };

  let page;
  try {
    try {
      page = await ingest(connection, token);
    } catch (error) {
      // The token came from an eventually consistent read: a strong one says whether it was rotated since (then one more
      // request, with the new token and its own slot) or the 401 is real (the run stops).
      const rotated = error instanceof SourceAuthError ? await rotatedConnection(deps, run, connection) : undefined;
      if (rotated === undefined) throw error;
      connection = rotated;
      page = await ingest(connection, await tokenOf(connection));
    }
  } catch (error) {
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
        await finishEntityAndAdvance(deps, run, { ...cursor, steps }, { status: "succeeded" }, connection),
      );
    }
    throw error;
  }
  deps.metrics.count(METRIC.pagesSynced, 1, { entity: cursor.entity });
  deps.metrics.count(METRIC.recordsSynced, page.records, { entity: cursor.entity });
  if (page.stages > 0) deps.metrics.count(METRIC.recordsSynced, page.stages, { entity: "stages" });

  if (page.hasMore) {
    const nextCursor: SyncCursor = {
      ...cursor,
      page: cursor.page + 1,
      watermark: page.watermark,
      previous: page.fingerprint,
      ...(Object.keys(page.findingSamples).length > 0 ? { finding_samples: page.findingSamples } : {}),
      rate_limit: connection.rate_limit,
      throttle_attempts: 0,
      steps,
    };
    return handOverIfContinuing(deps, { run, cursor: nextCursor, step: nextPageStep(deps, nextCursor) });
  }
  return handOverIfContinuing(
    deps,
    await finishEntityAndAdvance(
      deps,
      run,
      { ...cursor, page: cursor.page + 1, steps },
      { status: "succeeded" },
      connection,
    ),
  );
}

/** The page's lease and commit time, from one reading of the clock. */
function pageTimes(now: Date): { leaseUntil: string; committedAt: string } {
  return { leaseUntil: leaseUntil(now), committedAt: now.toISOString() };
}

function requireCursor(state: SyncState): SyncCursor {
  if (state.cursor === null) throw new TypeError("the page task was called without a cursor");
  return state.cursor;
}
