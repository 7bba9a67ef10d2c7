import { SyncError } from "../../domain/core/errors";
import { METRIC } from "../../domain/core/metric-names";
import { beginRun, BeginRunEventSchema } from "../../domain/sync/begin-run";
import { entityFailed } from "../../domain/sync/entity-failed";
import { finishRun, type FinishRunResult } from "../../domain/sync/finish-run";
import { stopRun } from "../../domain/sync/stop-run";
import { memoStageKinds, memoUserIds } from "../../domain/sync/stage-kinds-memo";
import { syncPage } from "../../domain/sync/sync-page";
import type { SyncDeps } from "../../domain/sync/sync-deps";
import { CaughtStateSchema, PageTaskEventSchema, SyncStateSchema, type SyncState } from "../../domain/sync/sync-state";
import { endSegmentByTime } from "../../domain/sync/entity-steps";
import { parseTaskEvent } from "../../domain/sync/task-event";
import { classifyThrown } from "../../domain/sync/failure-fault";
import { withFailureMessage } from "../../domain/sync/entity-failure";

/**
 * The state machine's Task handlers, keyed by the Task state that calls them
 * (statemachine/sync.asl.json). Thin: parse the event with its schema
 * (../../domain/sync/sync-state.ts; a malformed one fails as InvalidTaskEventError), call one domain
 * function, return the next state. The same functions back the Lambdas in AWS
 * and the local engine.
 */
export interface SyncHandlers {
  readonly BeginRun: (event: unknown) => Promise<SyncState>;
  readonly SyncPage: (event: unknown) => Promise<SyncState>;
  readonly EntityFailed: (event: unknown) => Promise<SyncState>;
  readonly StopRun: (event: unknown) => Promise<SyncState>;
  readonly FinishRun: (event: unknown) => Promise<FinishRunResult>;
}

export function makeSyncHandlers(syncDeps: SyncDeps): SyncHandlers {
  // Once per process, like the clients: the handlers are made once by each composition root.
  const deps: SyncDeps = {
    ...syncDeps,
    stageKinds: syncDeps.stageKinds ?? memoStageKinds(syncDeps.records),
    userIds: syncDeps.userIds ?? memoUserIds(syncDeps.records),
  };
  return {
    BeginRun: async (event) => beginRun(deps, parseTaskEvent("BeginRun", BeginRunEventSchema, event)),
    SyncPage: async (event) => {
      const { segment_started_at: segmentStartedAt, ...state } = parseTaskEvent("SyncPage", PageTaskEventSchema, event);
      const next = await countingRetries(deps, state, () => syncPage(deps, state, segmentStartedAt));
      return endSegmentByTime(next, segmentStartedAt, deps.clock.now());
    },
    EntityFailed: async (event) => {
      const { segment_started_at: segmentStartedAt, ...state } = parseTaskEvent("EntityFailed", CaughtStateSchema, event);
      return endSegmentByTime(await entityFailed(deps, state), segmentStartedAt, deps.clock.now());
    },
    StopRun: async (event) => stopRun(deps, parseTaskEvent("StopRun", CaughtStateSchema, event)),
    FinishRun: async (event) => finishRun(deps, parseTaskEvent("FinishRun", SyncStateSchema, event)),
  };
}

/**
 * Counts a page attempt that failed with an error the state machine retries
 * (a busy store is already StoreUnavailableError, named at its adapter's
 * edge): the retry happens in the definition's Retry block, which nothing
 * else reports. The error goes on with its failure (rule, record, field,
 * detail) as its message: all a Catch hands on (../entity-failure.ts).
 */
async function countingRetries(deps: SyncDeps, state: SyncState, work: () => Promise<SyncState>): Promise<SyncState> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof SyncError && error.retryable && state.cursor !== null) {
      deps.metrics.count(METRIC.pageRetries, 1, { entity: state.cursor.entity, ...classifyThrown(error) });
    }
    throw withFailureMessage(error);
  }
}
