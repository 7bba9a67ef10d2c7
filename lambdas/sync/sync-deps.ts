import type {
  Clock,
  ConnectionStore,
  Logger,
  RateLimiter,
  RecordStore,
  RunStarter,
  RunStore,
  SourceClient,
  TokenCipher,
} from "../core/ports";

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
  /** Page tasks per execution before continuing in a fresh one; defaults to PAGE_TASKS_PER_EXECUTION (tests lower it). */
  readonly pageTasksPerExecution?: number;
}

/** What starting a run needs (the scheduled dispatcher and the onboarding API). */
export interface StartSyncDeps {
  readonly connections: ConnectionStore;
  readonly runs: RunStore;
  readonly starter: RunStarter;
  readonly clock: Clock;
  readonly logger: Logger;
}
