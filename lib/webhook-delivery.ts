import { Duration } from "aws-cdk-lib";
import { Rule, Schedule } from "aws-cdk-lib/aws-events";
import { LambdaFunction } from "aws-cdk-lib/aws-events-targets";
import type { RetentionDays } from "aws-cdk-lib/aws-logs";
import { Construct } from "constructs";
import { DETAIL_TYPE, EVENT_SOURCE } from "../lambdas/domain/core/service-events";
import { WEBHOOK_SWEEP_INTERVAL_MINUTES } from "../lambdas/domain/webhooks/webhook-limits";
import type { RecordTable } from "./record-table";
import { FUNCTION_SIZES, ServiceFunction } from "./service-function";
import type { SourceTokenKey } from "./source-token-key";
import { TABLE_ACCESS } from "./table-access";

export interface WebhookDeliveryProps {
  readonly table: RecordTable;
  readonly tokenKey: SourceTokenKey;
  readonly logRetention: RetentionDays;
}

/**
 * The webhooks' deliveries (docs/webhooks.md): one function behind two rules. A rule on the default bus matches the
 * events the service already publishes (source EVENT_SOURCE, its detail types): the function makes each event's
 * deliveries and their first attempts. A schedule every minute attempts what is due (the retries). API
 * destinations cannot sign each body with each endpoint's secret nor fan out to a workspace's list, and an SQS
 * delay stops at 15 minutes: the due items live in the table, swept on this schedule.
 */
export class WebhookDelivery extends Construct {
  readonly function: ServiceFunction;
  readonly eventRule: Rule;
  readonly sweepRule: Rule;

  constructor(scope: Construct, id: string, props: WebhookDeliveryProps) {
    super(scope, id);
    this.function = new ServiceFunction(this, "Function", {
      entry: "webhook-delivery",
      description: "Webhooks: signs and sends the service's events to the workspaces' endpoints, and retries what is due",
      ...FUNCTION_SIZES.webhookDelivery,
      environment: {
        TABLE_NAME: props.table.table.tableName,
        KMS_KEY_ID: props.tokenKey.key.keyArn,
        // As the sources': no loopback endpoint in a deployment.
        ALLOW_LOOPBACK_SOURCES: "false",
      },
      logRetention: props.logRetention,
    });
    props.table.grantItemActions(this.function.role, TABLE_ACCESS.WebhookDelivery);
    // The endpoints' secrets are kept under the source tokens' key, with the same context rules.
    props.tokenKey.grantDecryptToken(this.function.role);

    this.eventRule = new Rule(this, "Events", {
      description: "The service's events, to the workspaces' webhook endpoints",
      eventPattern: { source: [EVENT_SOURCE], detailType: Object.values(DETAIL_TYPE) },
      // A failed invocation is retried by EventBridge; a delivery made twice is one (its id is the event's and the endpoint's).
      targets: [new LambdaFunction(this.function.alias, { retryAttempts: 2 })],
    });
    this.sweepRule = new Rule(this, "Sweep", {
      description: "Attempts the webhook deliveries that are due",
      schedule: Schedule.rate(Duration.minutes(WEBHOOK_SWEEP_INTERVAL_MINUTES)),
      // A missed sweep is made up by the next: what is due stays due.
      targets: [new LambdaFunction(this.function.alias, { retryAttempts: 0 })],
    });
  }
}
