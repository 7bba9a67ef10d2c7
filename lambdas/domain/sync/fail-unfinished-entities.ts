import type { SummaryEntity } from "../core/entities";
import type { EntityOutcome, RunStore } from "../core/ports/run-store";
import type { RunSummary } from "../core/run-summary";
import { isEntityEnded } from "../core/run-lifecycle";

/** The summary's rows not ended yet (core/run-lifecycle.ts): not reached (pending) or under way (running). */
export function unfinishedEntities(summary: RunSummary | null): SummaryEntity[] {
  return (summary?.entities ?? []).filter((row) => !isEntityEnded(row.status)).map((row) => row.entity);
}

/**
 * Ends every row of the run not finished yet with one outcome (a run that
 * stops, is taken over or released: failed with its failure; one the owner
 * cancels: cancelled), in one write of
 * the summary: rows that finished keep their outcome, and a run that has
 * finished by then keeps its summary (the store's running condition).
 * Returns the rows ended.
 */
export async function endUnfinishedEntities(
  runs: Pick<RunStore, "entitiesMoved">,
  summary: RunSummary | null,
  outcome: Exclude<EntityOutcome, { readonly status: "succeeded" }>,
): Promise<readonly SummaryEntity[]> {
  const unfinished = unfinishedEntities(summary);
  if (summary === null || unfinished.length === 0) return [];
  await runs.entitiesMoved(summary.connection_id, summary.id, { finished: unfinished, outcome, started: [] });
  return unfinished;
}
