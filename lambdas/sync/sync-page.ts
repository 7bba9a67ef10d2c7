import { SourceNotImplementedError, SourceThrottledError, SyncError } from "../core/errors";
import { MAX_RETRY_AFTER_SECONDS } from "../core/limits";
import { entityDefinition } from "../ingestion/entity-catalog";
import { ingestPage } from "../ingestion/ingest-page";
import { rateLimited } from "./rate-limited-source-client";
import { finishEntityAndAdvance, handOverIfContinuing, leaseUntil, loadConnection, nextPageStep } from "./entity-steps";
import type { SyncDeps } from "./sync-deps";
import type { SyncCursor, SyncState } from "./sync-state";

/**
 * The page task: one page of the current entity, under the connection's rate
 * limit. A 429 comes back as data (the state machine chooses the wait); a
 * 404 from an optional endpoint is the entity's success with 0 records; any
 * other failure is thrown by name for the state machine's Retry and Catch.
 * The page's commit carries the run's fence, lease and progress (no separate
 * heartbeat): a run that lost its connection's lock writes nothing.
 */
export async function syncPage(deps: SyncDeps, state: SyncState): Promise<SyncState> {
  const { run } = state;
  const cursor = requireCursor(state);
  const steps = cursor.steps + 1;
  // The slot is taken while the connection is read (the rate from the last read): two round trips at once.
  const slot = cursor.rate_limit === undefined ? undefined : deps.limiter.acquire(run.connection_id, cursor.rate_limit);
  slot?.catch(() => undefined);
  const connection = await loadConnection(deps, run);
  const token = await deps.cipher.decrypt(connection.token_ciphertext, {
    businessAccountId: run.business_account_id,
    connectionId: run.connection_id,
  });
  const source = rateLimited(
    deps.source,
    deps.limiter,
    { connectionId: run.connection_id, rateLimit: cursor.rate_limit ?? connection.rate_limit },
    undefined,
    slot,
  );

  let page;
  try {
    page = await ingestPage(
      {
        source,
        store: deps.records,
        logger: deps.logger,
        ...(deps.stageKinds === undefined ? {} : { stageKinds: (id: string) => deps.stageKinds!(id, run.run_id) }),
      },
      { baseUrl: connection.base_url, token },
      {
        connectionId: run.connection_id,
        entity: cursor.entity,
        page: cursor.page,
        updatedSince: cursor.updated_since,
        watermark: cursor.watermark,
        previous: cursor.previous,
        run: { runId: run.run_id, leaseUntil: leaseUntil(deps.clock.now()) },
      },
    );
  } catch (error) {
    if (error instanceof SourceThrottledError && error.retryAfterSeconds > MAX_RETRY_AFTER_SECONDS) {
      // Waiting that long would hold the connection's run for hours: fail the entity now; the next run resumes it.
      throw new SourceThrottledError(
        `the source asked to wait ${error.retryAfterSeconds} s (Retry-After); the service waits at most ${MAX_RETRY_AFTER_SECONDS} s, so the entity failed and the next run resumes it from its watermark. ${error.detail}`,
        error.retryAfterSeconds,
      );
    }
    if (error instanceof SourceThrottledError) {
      deps.logger.warn("page throttled", {
        connection_id: run.connection_id,
        run_id: run.run_id,
        entity: cursor.entity,
        page: cursor.page,
        retry_after_seconds: error.retryAfterSeconds,
        attempt: cursor.throttle_attempts + 1,
      });
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
    }
    if (error instanceof SourceNotImplementedError && !entityDefinition(cursor.entity).required) {
      deps.logger.info("optional endpoint not implemented (404): 0 records", {
        connection_id: run.connection_id,
        run_id: run.run_id,
        entity: cursor.entity,
      });
      return handOverIfContinuing(
        deps,
        await finishEntityAndAdvance(deps, run, { ...cursor, steps }, { status: "succeeded", error: null }, connection),
      );
    }
    throw error;
  }

  if (page.hasMore) {
    const next: SyncCursor = {
      ...cursor,
      page: cursor.page + 1,
      watermark: page.watermark,
      previous: page.fingerprint,
      rate_limit: connection.rate_limit,
      throttle_attempts: 0,
      steps,
    };
    return handOverIfContinuing(deps, { run, cursor: next, step: nextPageStep(deps, next) });
  }
  return handOverIfContinuing(
    deps,
    await finishEntityAndAdvance(
      deps,
      run,
      { ...cursor, page: cursor.page + 1, steps },
      { status: "succeeded", error: null },
      connection,
    ),
  );
}

function requireCursor(state: SyncState): SyncCursor {
  if (state.cursor === null) throw new TypeError("the page task was called without a cursor");
  return state.cursor;
}
