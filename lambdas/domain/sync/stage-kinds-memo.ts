import type { RecordStore, StageKinds } from "../core/ports/record-store";

/** Runs whose stage kinds one process keeps; a page task process serves few runs at once. */
export const STAGE_KINDS_MEMO_RUNS = 64;

export type StageKindsOfRun = OfRun<StageKinds>;

/** What a run reads once per process: the run's stage kinds, the connection's user ids. */
export type OfRun<T> = (connectionId: string, runId: string) => Promise<T>;

/** A read made once per (connection, run) and kept for the runs of the last `maxRuns`; a failed read is forgotten. */
function memoByRun<T>(read: (connectionId: string) => Promise<T>, maxRuns: number): OfRun<T> {
  const byRun = new Map<string, Promise<T>>();
  return (connectionId, runId) => {
    const key = JSON.stringify([connectionId, runId]);
    let value = byRun.get(key);
    if (value === undefined) {
      value = read(connectionId);
      value.catch(() => byRun.delete(key));
      byRun.set(key, value);
      // Oldest first in a Map: drop the oldest run beyond the bound.
      if (byRun.size > maxRuns) byRun.delete(byRun.keys().next().value as string);
    }
    return value;
  };
}

/**
 * Stage kinds read once per run, not once per leads page. Exact, not a guess:
 * a run syncs /pipelines before /leads and no other run of the connection can
 * write stages while it holds the lock, so the kinds cannot change under it.
 * A failed read is forgotten so that the next page reads again.
 */
export function memoStageKinds(records: Pick<RecordStore, "getStageKinds">, maxRuns = STAGE_KINDS_MEMO_RUNS): StageKindsOfRun {
  return memoByRun((connectionId) => records.getStageKinds(connectionId), maxRuns);
}

export type UserIdsOfRun = OfRun<ReadonlySet<string>>;

/** The connection's user ids, read once per run for reference.user (a run syncs /users before the entities that name users). */
export function memoUserIds(records: Pick<RecordStore, "getUserIds">, maxRuns = STAGE_KINDS_MEMO_RUNS): UserIdsOfRun {
  return memoByRun((connectionId) => records.getUserIds(connectionId), maxRuns);
}
