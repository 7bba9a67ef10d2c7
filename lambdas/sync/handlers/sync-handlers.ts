import * as v from "valibot";
import { beginRun, BeginRunEventSchema } from "../begin-run";
import { entityFailed } from "../entity-failed";
import { finishRun, type FinishRunResult } from "../finish-run";
import { stopRun } from "../stop-run";
import { PageReadAheads } from "../page-read-ahead";
import { memoStageKinds } from "../stage-kinds-memo";
import { syncPage } from "../sync-page";
import type { SyncDeps } from "../sync-deps";
import type { CaughtError, SyncState } from "../sync-state";
import { withStoreErrors } from "./store-errors";

/**
 * The state machine's Task handlers, keyed by the Task state that calls them
 * (statemachine/sync.asl.json). Thin: parse the event, call one domain
 * function, return the next state. The same functions back the Lambdas in AWS
 * and the local engine.
 */
export interface SyncHandlers {
  readonly BeginRun: (event: unknown) => Promise<SyncState>;
  readonly FetchPage: (event: unknown) => Promise<SyncState>;
  readonly EntityFailed: (event: unknown) => Promise<SyncState>;
  readonly StopRun: (event: unknown) => Promise<SyncState>;
  readonly FinishRun: (event: unknown) => Promise<FinishRunResult>;
}

export function makeSyncHandlers(syncDeps: SyncDeps): SyncHandlers {
  // Once per process, like the clients: the handlers are made once by each composition root.
  const deps: SyncDeps = {
    ...syncDeps,
    stageKinds: syncDeps.stageKinds ?? memoStageKinds(syncDeps.records),
    readAheads: syncDeps.readAheads ?? new PageReadAheads(),
  };
  return {
    BeginRun: (event) => withStoreErrors(() => beginRun(deps, v.parse(BeginRunEventSchema, event))),
    FetchPage: (event) => withStoreErrors(() => syncPage(deps, event as SyncState)),
    EntityFailed: (event) => withStoreErrors(() => entityFailed(deps, event as SyncState & { error: CaughtError })),
    StopRun: (event) => withStoreErrors(() => stopRun(deps, event as SyncState & { error: CaughtError })),
    FinishRun: (event) => withStoreErrors(() => finishRun(deps, event as SyncState)),
  };
}
