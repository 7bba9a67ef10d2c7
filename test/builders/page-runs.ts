import type { PageRun, PageWrite } from "../../lambdas/domain/core/ports/record-store";
import type { RunStore } from "../../lambdas/domain/core/ports/run-store";
import type { SyncEntity } from "../../lambdas/domain/core/entities";

/** A lease far enough ahead that no test sees it pass. */
export const FAR_LEASE = "2099-01-01T00:00:00.000Z";

/** When a built page commits, unless overridden: a fixed time, so no test reads the clock. */
export const PAGE_COMMITTED_AT = "2026-01-01T00:05:00.000Z";

/** The run part of a page write: page 1 of leads for run-1 unless overridden. */
export function pageRun(overrides: Partial<PageRun> = {}): PageRun {
  return {
    runId: "run-1",
    entity: "leads",
    page: 1,
    records: 0,
    stages: 0,
    unresolvedWonLost: 0,
    leaseUntil: FAR_LEASE,
    committedAt: PAGE_COMMITTED_AT,
    ...overrides,
  };
}

/**
 * A run that holds its connection's lock (begun through the run store), and
 * its pages numbered as the sync numbers them: each `page()` is the next page
 * of its entity.
 */
export async function runHoldingLock(runs: RunStore, connectionId: string, runId = `run-${connectionId}`) {
  await runs.begin({ connectionId, runId, startedAt: "2026-01-01T00:00:00.000Z", leaseUntil: FAR_LEASE });
  const pages = new Map<SyncEntity, number>();
  return {
    runId,
    page(write: Omit<PageWrite, "run">, entity: SyncEntity = write.watermark?.entity ?? "leads"): PageWrite {
      const page = (pages.get(entity) ?? 0) + 1;
      pages.set(entity, page);
      return { ...write, run: pageRun({ runId, entity, page }) };
    },
  };
}

/**
 * Page writes fenced as the sync fences them: each connection gets a run that
 * holds its lock (begun on its first write), and each write becomes that run's
 * next page. The store is asked for when first needed (a test table is made in beforeAll).
 */
export function fencedPages(runs: () => RunStore): (write: Omit<PageWrite, "run">) => Promise<PageWrite> {
  const held = new Map<string, Awaited<ReturnType<typeof runHoldingLock>>>();
  return async (write) => {
    let run = held.get(write.connectionId);
    if (run === undefined) {
      run = await runHoldingLock(runs(), write.connectionId);
      held.set(write.connectionId, run);
    }
    return run.page(write);
  };
}
