import type { RecordStore, StageKinds } from "../core/ports/record-store";

/** Runs whose stage kinds one process keeps; a page task process serves few runs at once. */
export const STAGE_KINDS_MEMO_RUNS = 64;

export type StageKindsOfRun = (connectionId: string, runId: string) => Promise<StageKinds>;

/**
 * Stage kinds read once per run, not once per leads page. Exact, not a guess:
 * a run syncs /pipelines before /leads and no other run of the connection can
 * write stages while it holds the lock, so the kinds cannot change under it.
 * A failed read is forgotten so that the next page reads again.
 */
export function memoStageKinds(records: Pick<RecordStore, "getStageKinds">, maxRuns = STAGE_KINDS_MEMO_RUNS): StageKindsOfRun {
  const byRun = new Map<string, Promise<StageKinds>>();
  return (connectionId, runId) => {
    const key = JSON.stringify([connectionId, runId]);
    let kinds = byRun.get(key);
    if (kinds === undefined) {
      kinds = records.getStageKinds(connectionId);
      kinds.catch(() => byRun.delete(key));
      byRun.set(key, kinds);
      // Oldest first in a Map: drop the oldest run beyond the bound.
      if (byRun.size > maxRuns) byRun.delete(byRun.keys().next().value as string);
    }
    return kinds;
  };
}
