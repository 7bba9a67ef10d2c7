import type { Clock, Sleep } from "../core/ports/clock";
import type { BaseUrlPolicy } from "../core/ports/base-url-policy";
import type { ConnectionStore } from "../core/ports/connection-store";
import type { KeySpace } from "../core/ports/key-space";
import type { Logger } from "../core/ports/logger";
import type { RateLimiter } from "../core/ports/rate-limiter";
import type { RecordStore } from "../core/ports/record-store";
import type { AuditStore } from "../core/ports/audit-store";
import type { RunStarter } from "../core/ports/run-starter";
import type { RunStore } from "../core/ports/run-store";
import type { SourceClient } from "../core/ports/source-client";
import type { TokenCipher } from "../core/ports/token-cipher";
import type { NotificationStore } from "../core/ports/notification-store";
import type { HistoryStore } from "../core/ports/history-store";
import type { ChangeStore } from "../core/ports/change-store";
import type { PreflightLauncher, PreflightStore } from "../preflight/preflight-run";
import type { FiguresStore } from "../figures/figures-store";

/** Every port the onboarding API uses; the composition roots (AWS, local, tests) fill it. */
export interface OnboardingDeps {
  readonly connections: ConnectionStore;
  readonly cipher: TokenCipher;
  readonly runs: RunStore;
  readonly records: RecordStore;
  /** The leads' stage history the sync keeps (GET .../records/leads/{id}/history, velocity). */
  readonly history: HistoryStore;
  /** The change feed the sync writes (GET .../changes). */
  readonly changes: ChangeStore;
  /** What explain reads of one record: its document and the marks audits left on it. */
  readonly audits: AuditStore;
  /** The connection's figures the sync keeps (funnel, records per collection), read by their routes. */
  readonly figures: FiguresStore;
  /** The SSRF-guarded source client: the test call goes through it, under the connection's rate limit. */
  readonly source: SourceClient;
  readonly limiter: RateLimiter;
  readonly starter: RunStarter;
  readonly clock: Clock;
  readonly logger: Logger;
  /** The service's conformance runs (POST .../preflight) and where they are run. */
  readonly preflights: PreflightStore;
  readonly preflightLauncher: PreflightLauncher;
  /** The workspace's notifications (GET /notifications): the events the sync and the audits sent. */
  readonly notifications: NotificationStore;
  /** The base_url rules; loopback is let through only by the local runtime (demo, tests), never in the CDK deployment. */
  readonly baseUrls: BaseUrlPolicy;
  /** Which path ids the store could hold: one it could not names nothing (404 without asking the store). */
  readonly keySpace: KeySpace;
  /** The scheduled dispatcher's interval as configured (`1h`, `off`), shown on each connection; absent when not known. */
  readonly schedule?: string;
  /** How the test call waits before trying its own busy store again; real time when absent (tests pass a manual clock's). */
  readonly sleep?: Sleep;
}
