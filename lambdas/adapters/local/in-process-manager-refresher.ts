import type { Logger } from "../../domain/core/ports/logger";
import type { ManagerRefresher } from "../../domain/core/ports/manager-refresher";

type Job = Parameters<ManagerRefresher["request"]>[0];

/**
 * The ManagerRefresher of the local runtime: the refresh runs in this process
 * after the run's end has been written (in AWS it is an async Lambda invoke).
 * One refresh per connection at a time: a request while one runs is kept and
 * runs after it. `idle()` is the gate tests wait on instead of the clock.
 */
export class InProcessManagerRefresher implements ManagerRefresher {
  private readonly running = new Map<string, Promise<void>>();

  constructor(
    private readonly refresh: (job: Job) => Promise<unknown>,
    private readonly logger: Logger,
  ) {}

  async request(job: Job): Promise<void> {
    const before = this.running.get(job.connectionId) ?? Promise.resolve();
    const next: Promise<void> = before
      .then(() => this.refresh(job))
      .then(
        () => undefined,
        (error: unknown) => this.logger.error("manager figures refresh failed", { connection_id: job.connectionId, error: error instanceof Error ? error.name : "unknown" }),
      )
      .finally(() => {
        if (this.running.get(job.connectionId) === next) this.running.delete(job.connectionId);
      });
    this.running.set(job.connectionId, next);
  }

  /** Resolves once every requested refresh has ended. */
  async idle(): Promise<void> {
    while (this.running.size > 0) await Promise.all([...this.running.values()]);
  }
}
