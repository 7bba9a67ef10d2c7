import type { Clock } from "../../lambdas/domain/core/ports/clock";
import { systemClock } from "../../lambdas/domain/core/ports/clock";

/**
 * Keeps pages stable while the data changes under a reader.
 *
 * Offset paging over a live table has a trap: when a record on a page the
 * client has already read is modified, it moves to the end (its updated_at is
 * now the newest), every later record shifts one place forward, and the first
 * record of the next page slides onto a page already read. The client never
 * sees it, and since its updated_at is older than the new watermark, no later
 * incremental sync sees it either.
 *
 * The service reads an entity as pages 1, 2, 3... with one fixed
 * updated_since. So the ordered result is remembered when page 1 is asked
 * for, and later pages of the same read are cut from that list. A record
 * changed mid-read keeps its old place and old content in this read (records
 * are replaced, never edited in place) and comes back, changed, in the next
 * read, whose updated_since is at most this read's newest timestamp.
 *
 * Two readers with the same endpoint and updated_since share a snapshot, and
 * either one's page 1 renews it; that only matters if the data changes while
 * both are reading.
 */

interface Snapshot<T> {
  readonly records: readonly T[];
  lastUsed: number;
}

export interface ReadSnapshotsOptions {
  /** A read idle this long is forgotten; its later pages are then computed afresh. Default 10 minutes. */
  readonly idleMs?: number;
  /** At most this many reads are remembered; the least recently used goes first. Default 64. */
  readonly maxReads?: number;
  readonly clock?: Clock;
}

export class ReadSnapshots<T> {
  readonly #reads = new Map<string, Snapshot<T>>();
  readonly #idleMs: number;
  readonly #maxReads: number;
  readonly #now: () => number;

  constructor(options: ReadSnapshotsOptions = {}) {
    this.#idleMs = options.idleMs ?? 10 * 60_000;
    this.#maxReads = options.maxReads ?? 64;
    const clock = options.clock ?? systemClock;
    this.#now = () => clock.now().getTime();
  }

  /**
   * The ordered records of the read named `key` (endpoint and updated_since):
   * computed and remembered on page 1, reused on later pages while remembered.
   */
  records(key: string, page: number, compute: () => readonly T[]): readonly T[] {
    const now = this.#now();
    this.#forgetIdle(now);
    const known = page > 1 ? this.#reads.get(key) : undefined;
    if (known !== undefined) {
      known.lastUsed = now;
      // Map order is insertion order: re-insert to mark it most recently used.
      this.#reads.delete(key);
      this.#reads.set(key, known);
      return known.records;
    }
    const records = compute();
    this.#reads.delete(key);
    this.#reads.set(key, { records, lastUsed: now });
    while (this.#reads.size > this.#maxReads) {
      const oldest = this.#reads.keys().next().value;
      if (oldest === undefined) break;
      this.#reads.delete(oldest);
    }
    return records;
  }

  #forgetIdle(now: number): void {
    for (const [key, snapshot] of this.#reads) {
      if (now - snapshot.lastUsed > this.#idleMs) this.#reads.delete(key);
    }
  }
}
