import type { MetricDimensions, MetricName } from "../../domain/core/metric-names";
import type { Metrics } from "../../domain/core/ports/metrics";

export interface CountedMetric {
  readonly name: MetricName;
  readonly dimensions: MetricDimensions;
  readonly value: number;
}

/**
 * The local runtime's Metrics: running totals per metric and dimension set, in
 * memory. Bounded, since dimensions are low-cardinality. Tests read them with
 * `sum`; the local runtime has no CloudWatch to send them to.
 */
export class CountingMetrics implements Metrics {
  private readonly totals = new Map<string, CountedMetric>();

  count(name: MetricName, value: number, dimensions: MetricDimensions = {}): void {
    const key = JSON.stringify([name, Object.entries(dimensions).sort(([a], [b]) => a.localeCompare(b))]);
    const previous = this.totals.get(key);
    this.totals.set(key, { name, dimensions, value: (previous?.value ?? 0) + value });
  }

  /** Gauges as recorded, in order (the local runtime keeps them in memory; tests read them). */
  readonly gauges: { readonly name: MetricName; readonly seconds: number; readonly properties: Readonly<Record<string, string>> }[] = [];

  gauge(name: MetricName, seconds: number, properties: Readonly<Record<string, string>>): void {
    this.gauges.push({ name, seconds, properties });
  }

  /** The total of `name` over every dimension set that matches each given dimension. */
  sum(name: MetricName, where: MetricDimensions = {}): number {
    let total = 0;
    for (const counted of this.totals.values()) {
      if (counted.name !== name) continue;
      if (Object.entries(where).every(([key, value]) => counted.dimensions[key as keyof MetricDimensions] === value)) total += counted.value;
    }
    return total;
  }

  all(): CountedMetric[] {
    return [...this.totals.values()];
  }
}
