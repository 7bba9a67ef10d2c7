/** The reference CRM's history: its span, the instants records carry and whom they belong to. */
import type { Random } from "./prng";
import type { SourceUser } from "./records";
import { formatTimestamp, OFFSET_MINUTES } from "./timestamps";

export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;
/** How far back the history goes. */
export const HISTORY = 180 * DAY;
/**
 * The newest generated change is at least this old, so that a change made
 * "now" (see mutations.ts) always has a later updated_at than anything before it.
 */
export const QUIET = MINUTE;

/** Picks instants in the history and writes them with a random offset. */
export class Timeline {
  /** The latest instant a generated record may carry. */
  readonly latest: number;
  constructor(
    private readonly rng: Random,
    readonly now: number,
  ) {
    this.latest = now - QUIET;
  }
  /** A uniform instant in [from, to] (to clamped to `latest`). */
  between(from: number, to: number = this.latest): number {
    const end = Math.min(to, this.latest);
    return from >= end ? end : from + Math.floor(this.rng.next() * (end - from));
  }
  /** An instant up to `span` before `latest`. */
  ago(span: number = HISTORY): number {
    return this.between(this.latest - span);
  }
  /** Half the records in UTC (`Z`), the rest in +02:00 or -05:00: consumers must compare instants. */
  stamp(ms: number): string {
    return formatTimestamp(ms, this.rng.chance(0.5) ? 0 : this.rng.pick(OFFSET_MINUTES.slice(1)));
  }
}

/** Whom records belong to: mostly current staff, sometimes someone who has left, rarely nobody. */
export class Owners {
  private readonly active: string[];
  private readonly all: string[];
  constructor(
    users: readonly SourceUser[],
    private readonly rng: Random,
  ) {
    this.all = users.map((user) => user.id);
    this.active = users.filter((user) => user.is_active !== false).map((user) => user.id);
    if (this.active.length === 0) this.active = this.all;
  }
  pick(): string | null {
    if (this.rng.chance(0.02)) return null;
    return this.rng.pick(this.rng.chance(0.9) ? this.active : this.all);
  }
}

/** Epoch ms of a timestamp this module wrote (always with an offset, so Date.parse reads it exactly). */
export const at = (stamp: string): number => Date.parse(stamp);
