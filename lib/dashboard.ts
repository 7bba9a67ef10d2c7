import { Duration, Stack } from "aws-cdk-lib";
import type { HttpApi } from "aws-cdk-lib/aws-apigatewayv2";
import { Dashboard, GraphWidget, type IMetric, MathExpression, TextWidget } from "aws-cdk-lib/aws-cloudwatch";
import type { TableV2 } from "aws-cdk-lib/aws-dynamodb";
import type { StateMachine } from "aws-cdk-lib/aws-stepfunctions";
import { Construct } from "constructs";
import { METRIC, METRIC_SERVICE } from "../lambdas/domain/core/metric-names";
import { TABLE_OPERATIONS, type Alarms } from "./alarms";
import { metricNamespace, type ServiceFunction } from "./service-function";

export interface ServiceDashboardProps {
  readonly stateMachine: StateMachine;
  readonly pageTask: ServiceFunction;
  readonly functions: Readonly<Record<string, ServiceFunction>>;
  readonly table: TableV2;
  readonly httpApi: HttpApi;
  readonly alarms: Alarms;
}

const PERIOD = Duration.minutes(5);

/**
 * One CloudWatch dashboard for the service (docs/observability.md, "Dashboard"): sync
 * executions and our own failure counts, the page task (duration against its
 * timeout, errors, throttles, concurrency), DynamoDB capacity and throttles,
 * and the API's traffic, 4xx, 5xx and latency.
 */
export class ServiceDashboard extends Construct {
  readonly dashboard: Dashboard;

  constructor(scope: Construct, id: string, props: ServiceDashboardProps) {
    super(scope, id);
    const sm = props.stateMachine;
    const page = props.pageTask.function;
    const graph = (title: string, left: IMetric[], right: IMetric[] = []) => new GraphWidget({ title, left, right, width: 12, height: 6 });
    const each = (metric: (fn: ServiceFunction) => IMetric) => Object.values(props.functions).map(metric);

    this.dashboard = new Dashboard(this, "Dashboard", {
      dashboardName: `${Stack.of(this).stackName}-operations`,
      defaultInterval: Duration.hours(24),
    });
    this.dashboard.addWidgets(
      new TextWidget({
        markdown:
          "# CRM integration\nSync runs, page task, table and API. Alarms fire only on failures of the service; a customer's failing source shows in its run summary (docs/operations.md, \"Runbook\").",
        width: 24,
        height: 2,
      }),
    );
    this.dashboard.addWidgets(
      graph("Sync executions", [
        sm.metricStarted({ period: PERIOD }),
        sm.metricSucceeded({ period: PERIOD }),
        sm.metricFailed({ period: PERIOD }),
        sm.metricTimedOut({ period: PERIOD }),
        sm.metricAborted({ period: PERIOD }),
        // Runs, not executions: a run that continues in a fresh execution ends one "succeeded" execution on the way.
        props.alarms.runsSucceeded.with({ period: PERIOD, label: "RunsSucceeded" }),
      ]),
      graph("Failures of ours", [props.alarms.runsFailedOurs, props.alarms.runsCouldNotBegin, props.alarms.dispatchStartFailures, props.alarms.entityFailuresOurs, props.alarms.pageRetriesOurs]),
    );
    // The Task functions' EMF metrics, one line per entity or error class (SEARCH: the set of entities needs no list here).
    const namespace = metricNamespace(this);
    const search = (label: string, dimensions: string, metricName: string, filter = "") =>
      new MathExpression({
        expression: `SEARCH('{${namespace},${dimensions}} MetricName="${metricName}" service="${METRIC_SERVICE}"${filter}', 'Sum', 300)`,
        usingMetrics: {},
        label,
        period: PERIOD,
      });
    this.dashboard.addWidgets(
      graph("Pages synced per entity", [search("Pages", "service,entity", METRIC.pagesSynced)]),
      graph("Records synced per entity", [search("Records", "service,entity", METRIC.recordsSynced)]),
    );
    this.dashboard.addWidgets(
      graph("Entity failures: ours (alarmed) and the customers' (not)", [search("EntityFailures", "service,fault", METRIC.entityFailures)]),
      graph("Entity failures per entity and error class", [search("EntityFailures", "service,entity,error_class", METRIC.entityFailures)]),
    );
    this.dashboard.addWidgets(
      graph("429s from sources per entity", [search("Throttled", "service,entity", METRIC.pagesThrottled)]),
      graph("Page retries per error class", [search("Retries", "service,entity,error_class", METRIC.pageRetries)]),
    );
    this.dashboard.addWidgets(
      graph(
        "Page task duration (ms)",
        [page.metricDuration({ period: PERIOD, statistic: "p50" }), page.metricDuration({ period: PERIOD, statistic: "p99" }), page.metricDuration({ period: PERIOD, statistic: "Maximum" })],
      ),
      graph(
        "Page task invocations, errors, throttles, concurrency",
        [page.metricInvocations({ period: PERIOD }), page.metricErrors({ period: PERIOD }), page.metricThrottles({ period: PERIOD })],
        [page.metric("ConcurrentExecutions", { period: PERIOD, statistic: "Maximum" })],
      ),
    );
    this.dashboard.addWidgets(
      graph("Errors per function", each((fn) => fn.function.metricErrors({ period: PERIOD, label: fn.node.id }))),
      graph("Throttles per function", each((fn) => fn.function.metricThrottles({ period: PERIOD, label: fn.node.id }))),
    );
    this.dashboard.addWidgets(
      graph(
        "DynamoDB consumed capacity",
        [props.table.metricConsumedWriteCapacityUnits({ period: PERIOD }), props.table.metricConsumedReadCapacityUnits({ period: PERIOD })],
      ),
      // Two expressions over the same operations cannot share a graph (their metric ids collide): throttles left, system errors in their own.
      graph("DynamoDB throttled requests", [props.table.metricThrottledRequestsForOperations({ operations: TABLE_OPERATIONS, period: PERIOD, label: "ThrottledRequests" })]),
    );
    this.dashboard.addWidgets(
      graph("DynamoDB system errors", [props.table.metricSystemErrorsForOperations({ operations: TABLE_OPERATIONS, period: PERIOD, label: "SystemErrors" })]),
      graph("DynamoDB user errors (conditional checks are not among them)", [props.table.metricUserErrors({ period: PERIOD })]),
    );
    this.dashboard.addWidgets(
      graph("API requests, 4xx, 5xx", [props.httpApi.metricCount({ period: PERIOD }), props.httpApi.metricClientError({ period: PERIOD }), props.httpApi.metricServerError({ period: PERIOD })]),
      graph("API latency (ms)", [props.httpApi.metricLatency({ period: PERIOD, statistic: "p50" }), props.httpApi.metricLatency({ period: PERIOD, statistic: "p99" })]),
    );
  }
}
