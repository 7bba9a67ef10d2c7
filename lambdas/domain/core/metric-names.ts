/**
 * The sync's metrics, named once: the domain emits them through the Metrics
 * port, the AWS adapter publishes them as CloudWatch EMF, the stack's alarms
 * and dashboard read them by these names (docs/observability.md).
 */
/** The `service` dimension of every metric and key of every log line in AWS (POWERTOOLS_SERVICE_NAME). */
export const METRIC_SERVICE = "crm-integration";

export const METRIC = {
  /** A page committed (records and watermark written). Dimension: entity. */
  pagesSynced: "PagesSynced",
  /** Records a committed page wrote (stages of a /pipelines page included). Dimension: entity. */
  recordsSynced: "RecordsSynced",
  /** The source answered 429: the state machine waits and asks again. Dimension: entity. */
  pagesThrottled: "PagesThrottled",
  /** A page attempt failed with an error the state machine retries. Dimensions: entity, error_class, fault. */
  pageRetries: "PageRetries",
  /** An entity of a run failed (EntityFailed, or every unfinished entity when StopRun stops the run). Dimensions: entity, error_class, fault. */
  entityFailures: "EntityFailures",
  /** A run finished and succeeded. No dimension. */
  runsSucceeded: "RunsSucceeded",
  /** A run finished and failed (a required entity failed). No dimension. */
  runsFailed: "RunsFailed",
  /**
   * Seconds since the connection's oldest required data was brought up to date (its oldest data_as_of), at each
   * run's end. No dimension: the connection id is a property of the EMF line (a dimension per connection would be
   * a billed metric each); the Maximum is the oldest data of any connection, and Logs Insights names it.
   */
  oldestDataAge: "OldestDataAgeSeconds",
} as const;

export type MetricName = (typeof METRIC)[keyof typeof METRIC];

/**
 * Whose failure it is: the customer's (their source answered 4xx/5xx/401, timed
 * out, or sent a page that breaks the spec) or ours (the store, Lambda, the
 * state machine, the key, a bug). Alarms page us only for "ours".
 */
export type Fault = "customer" | "ours";

/**
 * Low-cardinality only: an entity name, an error class, a fault. Never a
 * connection id, run id or account id (those are log keys): each distinct
 * value is a separate, billed CloudWatch metric.
 */
export interface MetricDimensions {
  readonly entity?: string;
  readonly error_class?: string;
  readonly fault?: Fault;
}
