import { Duration } from "aws-cdk-lib";
import type { HttpApi } from "aws-cdk-lib/aws-apigatewayv2";
import { Alarm, ComparisonOperator, TreatMissingData, type IMetric } from "aws-cdk-lib/aws-cloudwatch";
import { SnsAction } from "aws-cdk-lib/aws-cloudwatch-actions";
import type { IFunction } from "aws-cdk-lib/aws-lambda";
import { Topic } from "aws-cdk-lib/aws-sns";
import { EmailSubscription } from "aws-cdk-lib/aws-sns-subscriptions";
import type { StateMachine } from "aws-cdk-lib/aws-stepfunctions";
import { Construct } from "constructs";

export interface AlarmsProps {
  readonly stateMachine: StateMachine;
  /** Every Lambda of the service, by a short name used in the alarm's id. */
  readonly functions: Readonly<Record<string, IFunction>>;
  readonly httpApi: HttpApi;
  readonly alarmEmail: string | undefined;
}

const PERIOD = Duration.minutes(5);

/**
 * The alarms, all on one SNS topic (e-mail subscription when context
 * `alarmEmail` is set): failed and timed-out sync executions, errors of every
 * Lambda, and 5xx answers of the HTTP API (the API handler turns an
 * unexpected error into a 500 response, so its Lambda reports no error).
 * Each fires on one occurrence in five minutes; no data is not a breach.
 */
export class Alarms extends Construct {
  readonly topic: Topic;
  readonly alarms: Alarm[] = [];

  constructor(scope: Construct, id: string, props: AlarmsProps) {
    super(scope, id);
    this.topic = new Topic(this, "Topic", { displayName: "CRM integration alarms", enforceSSL: true });
    // No SSE on this topic: it carries alarm state changes only (alarm name, metric, threshold), never customer
    // data or tokens, and CloudWatch alarms cannot publish to a topic encrypted with the AWS managed SNS key.
    if (props.alarmEmail !== undefined) this.topic.addSubscription(new EmailSubscription(props.alarmEmail));

    this.add("SyncExecutionsFailed", props.stateMachine.metricFailed({ period: PERIOD }), "A sync execution failed (a required entity failed, or the run could not begin)");
    this.add("SyncExecutionsTimedOut", props.stateMachine.metricTimedOut({ period: PERIOD }), "A sync execution timed out");
    for (const [name, fn] of Object.entries(props.functions)) {
      this.add(`${name}Errors`, fn.metricErrors({ period: PERIOD }), `Lambda ${name} reported an error`);
    }
    this.add("ApiServerErrors", props.httpApi.metricServerError({ period: PERIOD }), "The onboarding API answered 5xx");
  }

  private add(id: string, metric: IMetric, description: string): void {
    const alarm = new Alarm(this, id, {
      metric,
      alarmDescription: description,
      threshold: 1,
      evaluationPeriods: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    alarm.addAlarmAction(new SnsAction(this.topic));
    alarm.addOkAction(new SnsAction(this.topic));
    this.alarms.push(alarm);
  }
}
