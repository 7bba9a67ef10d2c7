import type { MetricDimensions, MetricName } from "../metric-names";

/** Counters (EMF in AWS, counted in memory locally). Dimensions stay low-cardinality: ids go in log keys. */
export interface Metrics {
  count(name: MetricName, value: number, dimensions?: MetricDimensions): void;
  /** A value in seconds at one moment, with its subject's ids as properties (never dimensions). */
  gauge(name: MetricName, seconds: number, properties: Readonly<Record<string, string>>): void;
}
