import type {
  Clock,
  ConnectionStore,
  Logger,
  Metrics,
  RateLimiter,
  RecordStore,
  RunStarter,
  RunStore,
  SourceClient,
  TokenCipher,
} from "../core/ports";
import type { StageKindsOfRun } from "./stage-kinds-memo";

/** Every port the sync's Task states use; the composition roots (AWS, local, tests) fill it. */
export interface SyncDeps {
  readonly connections: ConnectionStore;
  readonly cipher: TokenCipher;
  readonly runs: RunStore;
  readonly records: RecordStore;
  readonly source: SourceClient;
  readonly limiter: RateLimiter;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Pages, records, throttles, retries and failures per entity (docs/observability.md). */
  readonly metrics: Metrics;
  /** Stage kinds read once per run (makeSyncHandlers supplies the memo); each leads page reads the store when absent. */
  readonly stageKinds?: StageKindsOfRun;
  /** Page tasks per execution before continuing in a fresh one; defaults to PAGE_TASKS_PER_EXECUTION (tests lower it). */
  readonly pageTasksPerExecution?: number;
  /** Page tasks per segment of the Express child; defaults to PAGE_TASKS_PER_SEGMENT (tests lower it). */
  readonly pageTasksPerSegment?: number;
}

/** What starting a run needs (the scheduled dispatcher and the onboarding API). */
export interface StartSyncDeps {
  readonly connections: ConnectionStore;
  readonly runs: RunStore;
  readonly starter: RunStarter;
  readonly clock: Clock;
  readonly logger: Logger;
}
