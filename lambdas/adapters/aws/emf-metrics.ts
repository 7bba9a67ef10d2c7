import { MetricUnit, type Metrics as PowertoolsMetrics } from "@aws-lambda-powertools/metrics";
import type { MetricDimensions, MetricName } from "../../domain/core/metric-names";
import type { Metrics } from "../../domain/core/ports/metrics";

/**
 * The Metrics port in AWS: one CloudWatch Embedded Metric Format line per
 * count, written to stdout by Powertools (Lambda ships it to CloudWatch Logs,
 * which extracts the metric: no PutMetricData call, no IAM right).
 *
 * Each count is published under up to three dimension sets, so the alarms
 * and the dashboard read it without a SEARCH: [service] (the total),
 * [service, fault] (what the alarms on our failures read), and
 * [service, entity, error_class] (the breakdown). Fault is left out of the
 * last set: the error class decides it (lambdas/domain/sync/failure-fault.ts), and
 * EMF keys must not repeat across sets.
 */
export class EmfMetrics implements Metrics {
  constructor(private readonly metrics: PowertoolsMetrics) {}

  count(name: MetricName, value: number, dimensions: MetricDimensions = {}): void {
    // singleMetric: published at once, with its own dimensions, so no flush at the end of the invocation is needed.
    const single = this.metrics.singleMetric();
    const { fault, ...rest } = Object.fromEntries(Object.entries(dimensions).filter(([, v]) => v !== undefined)) as Record<string, string>;
    single.addDimensions({});
    if (fault !== undefined) single.addDimensions({ fault });
    if (Object.keys(rest).length > 0) single.addDimensions(rest);
    single.addMetric(name, MetricUnit.Count, value);
  }

  gauge(name: MetricName, seconds: number, properties: Readonly<Record<string, string>>): void {
    const single = this.metrics.singleMetric();
    single.addDimensions({});
    for (const [key, value] of Object.entries(properties)) single.addMetadata(key, value);
    single.addMetric(name, MetricUnit.Seconds, seconds);
  }
}
