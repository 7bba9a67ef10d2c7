/**
 * A tiny seeded pseudo-random generator (mulberry32) and the few helpers the
 * dataset needs. The same seed gives the same sequence on every machine and
 * Node version, which is what makes the reference data reproducible; it has
 * no dependency and is not meant for anything secret.
 */

export interface Random {
  /** A float in [0, 1). */
  next(): number;
  /** A whole number from `min` to `max`, both included. */
  int(min: number, max: number): number;
  /** `true` with the given probability (0..1). */
  chance(probability: number): boolean;
  /** One element of a non-empty list. */
  pick<T>(items: readonly T[]): T;
  /** `count` distinct elements of the list, in random order (fewer if the list is shorter). */
  sample<T>(items: readonly T[], count: number): T[];
}

export function seededRandom(seed: number): Random {
  // mulberry32: 32 bits of state, good enough spread for test data, one line of arithmetic per draw.
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  const int = (min: number, max: number): number => min + Math.floor(next() * (max - min + 1));
  return {
    next,
    int,
    chance: (probability) => next() < probability,
    pick<T>(items: readonly T[]): T {
      if (items.length === 0) throw new RangeError("pick from an empty list");
      return items[int(0, items.length - 1)] as T;
    },
    sample<T>(items: readonly T[], count: number): T[] {
      // Partial Fisher-Yates over a copy: only the first `count` slots are shuffled.
      const copy = [...items];
      const n = Math.min(count, copy.length);
      for (let i = 0; i < n; i += 1) {
        const j = int(i, copy.length - 1);
        [copy[i], copy[j]] = [copy[j] as T, copy[i] as T];
      }
      return copy.slice(0, n);
    },
  };
}
