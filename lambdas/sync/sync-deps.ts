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
}

/** What starting a run needs (the scheduled dispatcher and the onboarding API). */
export interface StartSyncDeps {
  readonly connections: ConnectionStore;
  readonly runs: RunStore;
  readonly starter: RunStarter;
  readonly clock: Clock;
  readonly logger: Logger;
}
