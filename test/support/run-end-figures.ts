import type { SyncDeps } from "../../lambdas/domain/sync/sync-deps";

/**
 * The sync's ports without what a run's end computes from every stored record: the figures (funnel, counts) and the
 * per-manager refresh. FinishRun skips what it is not given. A harness leaves them out unless its test reads them:
 * for a connection that changed, they are about 650 of a test run's DynamoDB reads per run (one Query per record
 * shard of each collection they read, twice for leads, tasks and calls), most of an API test file's calls.
 */
export const WITHOUT_RUN_END_FIGURES = {
  deps: ({ figures: _figures, managerRefresher: _refresher, ...deps }: SyncDeps): SyncDeps => deps,
} as const;
