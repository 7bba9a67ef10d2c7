import type { Clock } from "../core/ports/clock";
import type { EventPublisher } from "../core/ports/event-publisher";
import type { ConnectionStore } from "../core/ports/connection-store";
import type { Logger } from "../core/ports/logger";
import type { Metrics } from "../core/ports/metrics";
import type { RateLimiter } from "../core/ports/rate-limiter";
import type { RecordStore } from "../core/ports/record-store";
import type { RunStarter } from "../core/ports/run-starter";
import type { RunStore } from "../core/ports/run-store";
import type { SourceClient } from "../core/ports/source-client";
import type { TokenCipher } from "../core/ports/token-cipher";
import type { AuditStore } from "../core/ports/audit-store";
import type { FiguresStore } from "../figures/figures-store";
import type { ManagerRefresher } from "../core/ports/manager-refresher";
import type { StageKindsOfRun, UserIdsOfRun } from "./stage-kinds-memo";
import type { StaleCheckDeps } from "./stale-notice";

/** Every port the sync's Task states use; the composition roots (AWS, local, tests) fill it. */
export interface SyncDeps {
  readonly connections: ConnectionStore;
  readonly cipher: TokenCipher;
  readonly runs: RunStore;
  readonly records: RecordStore;
  /** What an audit's pages compare with, and how it tells what the source no longer returns. */
  readonly audits: AuditStore;
  readonly source: SourceClient;
  readonly limiter: RateLimiter;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Pages, records, throttles, retries and failures per entity (docs/observability.md). */
  readonly metrics: Metrics;
  /** The connection's figures (funnel, records per collection), recomputed at a run's end; absent: not kept. */
  readonly figures?: FiguresStore;
  /** Where a run's end, and a connection going stale, are told (notifications, then EventBridge or the log). */
  readonly events: EventPublisher;
  /** Where a run's end asks for the per-manager figures to be recomputed (docs/analytics-api.md); absent: never. */
  readonly managerRefresher?: ManagerRefresher;
  /** The schedule's interval: without freshness_hours on a connection, data older than twice it is stale. Null or absent: not known. */
  readonly scheduleIntervalMs?: number | null;
  /** Stage kinds read once per run (makeSyncHandlers supplies the memo); each leads page reads the store when absent. */
  readonly stageKinds?: StageKindsOfRun;
  /** The connection's user ids read once per run, for reference.user findings; each page reads the store when absent. */
  readonly userIds?: UserIdsOfRun;
  /** Page tasks per execution before continuing in a fresh one; defaults to PAGE_TASKS_PER_EXECUTION (tests lower it). */
  readonly pageTasksPerExecution?: number;
  /**
   * Fetch ahead, commit in order: page N+1's request leaves while page N is
   * validated and committed (fetch-ahead.ts, docs/throughput.md). Off when absent.
   */
  readonly fetchAhead?: boolean;
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
  /** The tick's freshness check of the paused connections it lists (stale-notice.ts); absent: the tick checks none. */
  readonly staleCheck?: Pick<StaleCheckDeps, "records" | "events" | "scheduleIntervalMs">;
}
