import { Duration } from "aws-cdk-lib";
import type { HttpApi } from "aws-cdk-lib/aws-apigatewayv2";
import {
  Alarm,
  ComparisonOperator,
  MathExpression,
  Metric,
  TreatMissingData,
  type IMetric,
} from "aws-cdk-lib/aws-cloudwatch";
import { SnsAction } from "aws-cdk-lib/aws-cloudwatch-actions";
import { Operation, type TableV2 } from "aws-cdk-lib/aws-dynamodb";
import type { Rule } from "aws-cdk-lib/aws-events";
import { FilterPattern, MetricFilter, type ILogGroup } from "aws-cdk-lib/aws-logs";
import { Topic } from "aws-cdk-lib/aws-sns";
import { EmailSubscription } from "aws-cdk-lib/aws-sns-subscriptions";
import type { StateMachine } from "aws-cdk-lib/aws-stepfunctions";
import { Construct } from "constructs";
import { METRIC, METRIC_SERVICE, type Fault } from "../lambdas/domain/core/metric-names";
import { DISPATCH_START_FAILED_MESSAGE } from "../lambdas/domain/sync/dispatch-tick";
import { metricNamespace, type ServiceFunction } from "./service-function";

export interface AlarmsProps {
  readonly stateMachine: StateMachine;
  /** The state machine's log group (ERROR level, with execution data: every ExecutionFailed event). */
  readonly stateMachineLogs: ILogGroup;
  /** Every Lambda of the service, by a short name used in the alarm's id. */
  readonly functions: Readonly<Record<string, ServiceFunction>>;
  /** The schedule tick (statemachine/dispatch.asl.json) and its log group (ERROR level). */
  readonly dispatchStateMachine: StateMachine;
  readonly dispatchLogs: ILogGroup;
  /** The dispatcher function's log group: its line for each run whose start the tick gave up on. */
  readonly dispatcherLogs: ILogGroup;
  readonly dispatchRule: Rule;
  readonly table: TableV2;
  readonly httpApi: HttpApi;
  readonly alarmEmail: string | undefined;
  /** Hours without one successful execution before NoSuccessfulRun fires; undefined when the schedule is off. */
  readonly noSuccessAlarmHours: number | undefined;
}


/**
 * The error names a sync execution ends with that are not ours: SyncRunFailed
 * (a required entity failed, usually the customer's source; or the run could
 * not begin, counted apart below) and RunSupersededError (a run judged dead
 * was taken over: the design working). Any other name (a States.* error, a
 * Lambda or store error that escaped the retries) is a fault of the service.
 */
export const CUSTOMER_OR_EXPECTED_ERRORS = ["SyncRunFailed", "RunSupersededError"] as const;
/**
 * The sync definition's Fail states that are ours, so SyncRunsFailedOurs counts them: PageLoopFailed, a segment that
 * failed again while failing entities after every retry (our own service unavailable).
 */
export const OUR_FAIL_STATE_ERRORS = ["PageLoopFailed"] as const;

/**
 * DispatchStartFailures: the dispatcher's line for a run whose start the tick gave up on, unless the run had started:
 * its own execution failed (States.TaskFailed) or outlived its Task's TimeoutSeconds (States.Timeout).
 */
export const DISPATCH_START_FAILURES_PATTERN = `{ $.message = "${DISPATCH_START_FAILED_MESSAGE}" && $.error != "States.TaskFailed" && $.error != "States.Timeout" }`;

/** The first words of the BeginFailed state's Cause (statemachine/sync.asl.json). */
export const BEGIN_FAILED_CAUSE = "The run could not begin";

/**
 * Thresholds: each is above what one customer can cause. A connection runs at
 * most once per schedule tick, so one customer's failing source fails at most
 * one execution per connection per tick; the alarms below either count errors
 * no source can produce, or need many at once.
 */
export const THRESHOLDS = {
  /** ExecutionFailed with an error of ours: any one. */
  runsFailedOurs: 1,
  /** Runs that could not begin (store down, or connections deleted between dispatch and begin) in 15 minutes. */
  runsCouldNotBegin: 5,
  /** Entities failed by an error of ours (EntityFailures, fault ours, from the Task functions' EMF): any one. */
  entityFailuresOurs: 1,
  /** Page attempts retried for an error of ours (the store, stale rate-limit slots) per 5 minutes, sustained. */
  pageRetriesOurs: 10,
  /** Connections the schedule tick could not start in an hour (StartExecution refused after its retries). */
  dispatchStartFailures: 3,
  /** Errors of the functions that never call a source, in 5 minutes. */
  lambdaErrors: 3,
  /** 5xx answers of the API in 5 minutes. */
  apiServerErrors: 5,
  /** DynamoDB system errors in 5 minutes. */
  dynamoSystemErrors: 5,
} as const;

/** Throttles are retried with jitter for minutes (docs/aws-guardrails.md, "Guardrails"): only throttling sustained for this many 5-minute periods alarms. */
export const SUSTAINED_PERIODS = 3;

const PERIOD = Duration.minutes(5);

/** The DynamoDB operations the functions send (lib/table-access.ts); CloudWatch alarms allow 10 metrics per expression. */
export const TABLE_OPERATIONS = [
  Operation.GET_ITEM,
  Operation.QUERY,
  Operation.PUT_ITEM,
  Operation.UPDATE_ITEM,
  Operation.DELETE_ITEM,
  Operation.BATCH_WRITE_ITEM,
  Operation.TRANSACT_WRITE_ITEMS,
  Operation.TRANSACT_GET_ITEMS,
];

/**
 * The alarms, all on one SNS topic (e-mail subscription when context
 * `alarmEmail` is set), on failures that are ours only (docs/observability.md):
 * a customer's failing source fails its entities and its run, which the run
 * summary reports to the customer; it pages no one.
 */
export class Alarms extends Construct {
  readonly topic: Topic;
  readonly alarms: Alarm[] = [];
  /** The metric-filter metrics, for the dashboard. */
  readonly runsFailedOurs: Metric;
  readonly runsCouldNotBegin: Metric;
  readonly dispatchStartFailures: Metric;
  /** The Task functions' EMF metrics (docs/observability.md), for the dashboard. */
  readonly entityFailuresOurs: Metric;
  readonly pageRetriesOurs: Metric;
  readonly runsSucceeded: Metric;

  constructor(scope: Construct, id: string, props: AlarmsProps) {
    super(scope, id);
    this.topic = new Topic(this, "Topic", { displayName: "CRM integration alarms", enforceSSL: true });
    // No SSE on this topic: it carries alarm state changes only (alarm name, metric, threshold), never customer
    // data or tokens, and CloudWatch alarms cannot publish to a topic encrypted with the AWS managed SNS key.
    if (props.alarmEmail !== undefined) this.topic.addSubscription(new EmailSubscription(props.alarmEmail));
    const namespace = metricNamespace(this);

    // Sync executions.
    const others = CUSTOMER_OR_EXPECTED_ERRORS.map((name) => `$.details.error != "${name}"`).join(" && ");
    this.runsFailedOurs = this.filter("RunsFailedOursFilter", props.stateMachineLogs, namespace, "SyncRunsFailedOurs", `{ $.type = "ExecutionFailed" && ${others} }`);
    this.add("SyncRunsFailedOurs", this.runsFailedOurs, THRESHOLDS.runsFailedOurs, "A sync execution failed with an error of the service (not SyncRunFailed, not RunSupersededError): see the state machine's log group for the error and the run id");
    this.runsCouldNotBegin = this.filter("RunsCouldNotBeginFilter", props.stateMachineLogs, namespace, "SyncRunsCouldNotBegin", `{ $.type = "ExecutionFailed" && $.details.cause = "${BEGIN_FAILED_CAUSE}*" }`);
    this.add("SyncRunsCouldNotBegin", this.runsCouldNotBegin.with({ period: Duration.minutes(15) }), THRESHOLDS.runsCouldNotBegin, "Sync runs could not begin (store unreachable or connection reads failing)");
    // No alarm on ExecutionsFailed: a customer's failing source fails its run, which its run summary reports. Ours are below.
    this.add("SyncExecutionsTimedOut", props.stateMachine.metricTimedOut({ period: PERIOD }), 1, "A sync execution exceeded its 24-hour TimeoutSeconds: a run is stuck");
    // Failures the Task functions classify as ours (lambdas/domain/sync/failure-fault.ts), read from their EMF under [service, fault].
    this.entityFailuresOurs = emf(namespace, METRIC.entityFailures, "ours");
    this.add("EntityFailuresOurs", this.entityFailuresOurs, THRESHOLDS.entityFailuresOurs, "An entity of a run failed with an error of the service (store, key, Lambda, a Task timeout, a bug): the error_class dimension and the 'entity failed' log line (run_id, connection_id) say which");
    this.pageRetriesOurs = emf(namespace, METRIC.pageRetries, "ours");
    this.add(
      "PageRetriesOurs",
      this.pageRetriesOurs,
      THRESHOLDS.pageRetriesOurs,
      `Page attempts retried for errors of the service (StoreUnavailableError, RateLimitSlotsStaleError) in ${SUSTAINED_PERIODS} 5-minute periods in a row`,
      { periods: SUSTAINED_PERIODS },
    );

    this.runsSucceeded = emf(namespace, METRIC.runsSucceeded, undefined, Duration.hours(1));
    if (props.noSuccessAlarmHours !== undefined) {
      const hours = props.noSuccessAlarmHours;
      this.add(
        "NoSuccessfulRun",
        // RunsSucceeded (FinishRun's EMF), not ExecutionsSucceeded: an execution that hands over to a fresh one (ContinueAsNew) also ends "succeeded".
        this.runsSucceeded,
        1,
        `No sync execution of any connection succeeded in ${hours} hours`,
        { comparison: ComparisonOperator.LESS_THAN_THRESHOLD, periods: hours, missing: TreatMissingData.BREACHING },
      );
    }

    // Dispatch.
    this.add(
      "DispatchFailed",
      sum("Dispatch executions failed", {
        failed: props.dispatchStateMachine.metricFailed({ period: PERIOD }),
        timedOut: props.dispatchStateMachine.metricTimedOut({ period: PERIOD }),
      }),
      1,
      "The schedule tick failed (ListConnections failed after its retries): connections not yet listed were not dispatched on this tick",
    );
    // Counted from the dispatcher's line when a Catch hands it a run to release (once per run, after the retries), not from the
    // tick's TaskFailed events: those are logged for every failed attempt, a retry that then succeeds included. A run's own
    // failure ends its RunSync or FirstSegment with States.TaskFailed, its time-out with States.Timeout (the run's alarms cover
    // both); any other error is the start itself refused (ExecutionLimitExceeded, throttling).
    this.dispatchStartFailures = this.filter(
      "DispatchStartFailuresFilter",
      props.dispatcherLogs,
      namespace,
      "DispatchStartFailures",
      DISPATCH_START_FAILURES_PATTERN,
    );
    this.add("DispatchStartFailures", this.dispatchStartFailures, THRESHOLDS.dispatchStartFailures, "The schedule tick could not start the runs of several connections (StartExecution refused after its retries)");
    this.add(
      "DispatchInvocationsFailed",
      new Metric({ namespace: "AWS/Events", metricName: "FailedInvocations", dimensionsMap: { RuleName: props.dispatchRule.ruleName }, statistic: "Sum", period: PERIOD }),
      1,
      "EventBridge could not invoke the dispatcher",
    );

    // Lambda: errors of the functions that never fail because of a source, throttles of all. The public OpenApi
    // function is left out of both: its every error or throttle is an API 5xx, which ApiServerErrors counts, and its
    // reserved concurrency of 5 throttles a flood on the public route on purpose. (CloudWatch takes at most 10 metrics
    // in one alarm: both sums are at 10.) The per-manager refresh and the webhooks' deliveries have their own errors
    // alarms for the same reason, and their async invokes are retried (by Lambda, by EventBridge, by the next
    // minute's sweep), so throttling them is harmless.
    const OWN_ALARM = ["ManagerRefresh", "WebhookDelivery"];
    const quiet = Object.entries(props.functions).filter(([name]) => name !== "SyncPage" && name !== "OpenApi" && !OWN_ALARM.includes(name));
    this.add(
      "LambdaErrors",
      sum("Errors", Object.fromEntries(quiet.map(([name, fn]) => [name, fn.function.metricErrors({ period: PERIOD })]))),
      THRESHOLDS.lambdaErrors,
      `Errors of ${quiet.map(([name]) => name).join(", ")} (SyncPage's errors include customers' sources and are left out; OpenApi's are API 5xx answers)`,
    );
    // The purge's reserved concurrency of 1 throttles an overlapping hourly run on purpose; Lambda retries that event itself.
    const refresh = props.functions["ManagerRefresh"];
    if (refresh !== undefined) {
      this.add("ManagerRefreshErrors", refresh.function.metricErrors({ period: PERIOD }), 1, "The per-manager figures' refresh failed (its log says the connection): their figures stay as the last refresh left them");
    }
    const webhooks = props.functions["WebhookDelivery"];
    if (webhooks !== undefined) {
      // A receiver's failure is an attempt's outcome, never a function error: an error here is the store's, KMS's or a bug.
      this.add("WebhookDeliveryErrors", webhooks.function.metricErrors({ period: PERIOD }), THRESHOLDS.lambdaErrors, "The webhooks' deliveries failed (the store or the key, not a receiver): deliveries wait, due, for the next sweep");
    }
    const throttled = Object.entries(props.functions).filter(([name]) => name !== "PurgeDeleted" && name !== "OpenApi" && !OWN_ALARM.includes(name));
    this.add(
      "LambdaThrottles",
      sum("Throttles", Object.fromEntries(throttled.map(([name, fn]) => [name, fn.function.metricThrottles({ period: PERIOD })]))),
      1,
      `Lambda throttled the service's functions in ${SUSTAINED_PERIODS} 5-minute periods in a row (reserved concurrency or account quota)`,
      { periods: SUSTAINED_PERIODS },
    );

    // DynamoDB.
    this.add("TableSystemErrors", props.table.metricSystemErrorsForOperations({ operations: TABLE_OPERATIONS, period: PERIOD }), THRESHOLDS.dynamoSystemErrors, "DynamoDB answered with system errors (500)");
    this.add(
      "TableThrottles",
      props.table.metricThrottledRequestsForOperations({ operations: TABLE_OPERATIONS, period: PERIOD }),
      1,
      `DynamoDB throttled requests in ${SUSTAINED_PERIODS} 5-minute periods in a row (a hot partition or the account's table quota)`,
      { periods: SUSTAINED_PERIODS },
    );

    // API.
    this.add("ApiServerErrors", props.httpApi.metricServerError({ period: PERIOD }), THRESHOLDS.apiServerErrors, "The onboarding API answered 5xx (the handler turns an unexpected error into a 500 response)");
  }

  private filter(id: string, logGroup: ILogGroup, namespace: string, metricName: string, pattern: string, value = "1"): Metric {
    new MetricFilter(this, id, { logGroup, metricNamespace: namespace, metricName, filterPattern: FilterPattern.literal(pattern), metricValue: value, defaultValue: 0 });
    return new Metric({ namespace, metricName, statistic: "Sum", period: PERIOD });
  }

  private add(
    id: string,
    metric: IMetric,
    threshold: number,
    description: string,
    options: { comparison?: ComparisonOperator; periods?: number; missing?: TreatMissingData } = {},
  ): void {
    const periods = options.periods ?? 1;
    const alarm = new Alarm(this, id, {
      metric,
      alarmDescription: description,
      threshold,
      evaluationPeriods: periods,
      datapointsToAlarm: periods,
      comparisonOperator: options.comparison ?? ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: options.missing ?? TreatMissingData.NOT_BREACHING,
    });
    alarm.addAlarmAction(new SnsAction(this.topic));
    alarm.addOkAction(new SnsAction(this.topic));
    this.alarms.push(alarm);
  }
}

/** A metric the functions publish as EMF, under [service] or [service, fault]: the dimension sets lambdas/adapters/aws/emf-metrics.ts writes. */
function emf(namespace: string, metricName: string, fault: Fault | undefined, period: Duration = PERIOD): Metric {
  return new Metric({
    namespace,
    metricName,
    dimensionsMap: { service: METRIC_SERVICE, ...(fault === undefined ? {} : { fault }) },
    statistic: "Sum",
    period,
  });
}

/** The sum of one Lambda metric over several functions, as one alarmable expression (ids must start lowercase). */
function sum(label: string, metrics: Record<string, IMetric>): MathExpression {
  const usingMetrics = Object.fromEntries(Object.entries(metrics).map(([name, metric]) => [`m${name}`, metric]));
  // SUM([...]) adds the series present at each time: a function with no datapoint does not blank the total.
  return new MathExpression({ expression: `SUM([${Object.keys(usingMetrics).join(", ")}])`, usingMetrics, label, period: PERIOD });
}
