import type { Logger } from "../../domain/core/ports/logger";
import type { PreflightJob, PreflightLauncher } from "../../domain/preflight/preflight-run";

/**
 * The PreflightLauncher of the local runtime: the job runs in this process,
 * after the request that launched it has been answered (in AWS it is an async
 * Lambda invoke). A job that throws is handed to `onFailure`, as Lambda hands a
 * failed invocation to the worker's on-failure destination. `idle()` is the
 * gate tests wait on instead of the clock.
 */
export class InProcessPreflightLauncher implements PreflightLauncher {
  private readonly running = new Set<Promise<void>>();

  constructor(
    private readonly run: (job: PreflightJob) => Promise<unknown>,
    private readonly logger: Logger,
    private readonly onFailure: (job: PreflightJob) => Promise<unknown>,
  ) {}

  async launch(job: PreflightJob): Promise<void> {
    const running: Promise<void> = Promise.resolve()
      .then(() => this.run(job))
      .then(
        () => undefined,
        async (error: unknown) => {
          this.logger.error("preflight job failed", { ...job, error: error instanceof Error ? error.name : "unknown" });
          await this.onFailure(job);
        },
      )
      .catch((error: unknown) => this.logger.error("preflight failure not recorded", { ...job, error: error instanceof Error ? error.name : "unknown" }))
      .finally(() => this.running.delete(running));
    this.running.add(running);
  }

  /** Resolves once every launched job has ended. */
  async idle(): Promise<void> {
    while (this.running.size > 0) await Promise.all([...this.running]);
  }
}
