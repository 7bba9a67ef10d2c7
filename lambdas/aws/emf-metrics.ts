import { MetricUnit, type Metrics as PowertoolsMetrics } from "@aws-lambda-powertools/metrics";
import type { MetricDimensions, MetricName } from "../core/metric-names";
import type { Metrics } from "../core/ports";

/**
 * The Metrics port in AWS: one CloudWatch Embedded Metric Format line per
 * count, written to stdout by Powertools (Lambda ships it to CloudWatch Logs,
 * which extracts the metric: no PutMetricData call, no IAM right).
 *
 * Each count is published under three dimension sets, so the alarms and the
 * dashboard can read it without a SEARCH: [service] (the total),
 * [service, fault] (what the alarms on our failures read), and
 * [service, ...every dimension] (per entity and error class).
 */
export class EmfMetrics implements Metrics {
  constructor(private readonly metrics: PowertoolsMetrics) {}

  count(name: MetricName, value: number, dimensions: MetricDimensions = {}): void {
    // singleMetric: published at once, with its own dimensions, so no flush at the end of the invocation is needed.
    const single = this.metrics.singleMetric();
    const all = Object.fromEntries(Object.entries(dimensions).filter(([, v]) => v !== undefined)) as Record<string, string>;
    const keys = Object.keys(all);
    single.addDimensions({});
    if (all.fault !== undefined && keys.length > 1) single.addDimensions({ fault: all.fault });
    if (keys.length > 0) single.addDimensions(all);
    single.addMetric(name, MetricUnit.Count, value);
  }
}
