import { MAX_SLOT_LEAD_MS, SLOT_LATE_MS } from "../core/limits";
import type { StoredConnection } from "../core/connection";

/** Pages whose read-ahead one process keeps; a page task process serves few runs at once. */
export const READ_AHEAD_PAGES = 64;
/** How far ahead the first reservation of an entity is made, before any page has shown what a commit costs. */
export const INITIAL_SLOT_LEAD_MS = 20;

/** What a page task prepared for the next page of its entity while its own page was committing. */
export interface ReadAhead {
  /** The connection as read (eventually consistent) during the previous page's commit (null: not found; confirmed strongly). */
  readonly connection: Promise<StoredConnection | null>;
  /** The next page's rate-limit slot (its start, epoch ms), reserved `leadMs` ahead. */
  readonly slot: Promise<number>;
  /** The lead the slot was reserved with. */
  readonly leadMs: number;
}

/** Which page a read-ahead is for. */
export interface PageKey {
  readonly runId: string;
  readonly entity: string;
  readonly page: number;
}

/**
 * Hands a page task's read-ahead (the connection read and the rate-limit slot
 * taken while the previous page committed) to the next page's task in the
 * same process. A page takes its entry once: a retried task finds none and
 * reads and acquires afresh, so a slot is never used twice. A page whose task
 * runs in another process (another Lambda container) finds none either: the
 * slot reserved for it is left unused (that only makes the window stricter).
 */
export class PageReadAheads {
  private readonly byPage = new Map<string, ReadAhead>();

  constructor(private readonly maxPages = READ_AHEAD_PAGES) {}

  put(page: PageKey, ahead: ReadAhead): void {
    const key = keyOf(page);
    this.byPage.delete(key);
    this.byPage.set(key, ahead);
    // Oldest first in a Map: drop the oldest page beyond the bound.
    if (this.byPage.size > this.maxPages) this.byPage.delete(this.byPage.keys().next().value as string);
  }

  /** The page's read-ahead, removed: only one task can ever use it. */
  take(page: PageKey): ReadAhead | undefined {
    const key = keyOf(page);
    const ahead = this.byPage.get(key);
    this.byPage.delete(key);
    return ahead;
  }
}

function keyOf(page: PageKey): string {
  return JSON.stringify([page.runId, page.entity, page.page]);
}

/**
 * The lead for the next reservation, from how this one went: `lateMs` is how
 * long after the reserved start the request was ready to leave (negative:
 * early, and it waited). Aiming half the stale bound late costs nothing (a
 * slot is good for SLOT_LATE_MS after its start) and keeps small jitter from
 * making the slot stale.
 */
export function nextSlotLead(leadMs: number, lateMs: number): number {
  const next = leadMs + lateMs - SLOT_LATE_MS / 2;
  return Math.round(Math.min(MAX_SLOT_LEAD_MS, Math.max(0, next)));
}
