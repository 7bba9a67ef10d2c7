/** Small statistics for the bench: order statistics, least squares. */

export function sorted(values: readonly number[]): number[] {
  return [...values].sort((a, b) => a - b);
}

/** The q-quantile (0..1) by linear interpolation between order statistics; NaN for no values. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const ordered = sorted(values);
  const position = (ordered.length - 1) * q;
  const below = Math.floor(position);
  const above = Math.ceil(position);
  const low = ordered[below]!;
  const high = ordered[above]!;
  return low + (high - low) * (position - below);
}

export const median = (values: readonly number[]): number => quantile(values, 0.5);
export const p95 = (values: readonly number[]): number => quantile(values, 0.95);

export function mean(values: readonly number[]): number {
  return values.length === 0 ? Number.NaN : values.reduce((sum, value) => sum + value, 0) / values.length;
}

/** Least-squares slope of y on x. */
export function slope(xs: readonly number[], ys: readonly number[]): number {
  const mx = mean(xs);
  const my = mean(ys);
  let num = 0;
  let den = 0;
  xs.forEach((x, i) => {
    num += (x - mx) * (ys[i]! - my);
    den += (x - mx) ** 2;
  });
  return den === 0 ? Number.NaN : num / den;
}

/**
 * The most events inside any half-open window [t, t + windowMs), over sorted
 * or unsorted times (every window that holds a maximum starts at an event).
 */
export function busiestWindow(times: readonly number[], windowMs: number): number {
  const ordered = sorted(times);
  let best = 0;
  let end = 0;
  for (let start = 0; start < ordered.length; start += 1) {
    while (end < ordered.length && ordered[end]! < ordered[start]! + windowMs) end += 1;
    best = Math.max(best, end - start);
  }
  return best;
}
