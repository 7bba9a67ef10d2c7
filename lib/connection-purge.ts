import { Duration } from "aws-cdk-lib";
import { Rule, Schedule } from "aws-cdk-lib/aws-events";
import { LambdaFunction } from "aws-cdk-lib/aws-events-targets";
import type { RetentionDays } from "aws-cdk-lib/aws-logs";
import { Construct } from "constructs";
import { PURGE_INTERVAL_MINUTES } from "../lambdas/domain/retention/purge-deleted-connections";
import { FIXED_RESERVED_CONCURRENCY } from "./deploy-config";
import type { RecordTable } from "./record-table";
import { FUNCTION_SIZES, ServiceFunction } from "./service-function";
import { TABLE_ACCESS } from "./table-access";

export interface ConnectionPurgeProps {
  readonly table: RecordTable;
  readonly logRetention: RetentionDays;
}

/**
 * The hourly purge of deleted connections' data (docs/retention.md): a rule
 * runs one function that deletes, within a bounded budget, what the delete
 * queued an hour earlier. It needs the table only: no key, no source, no
 * state machine. Reserved concurrency 1: two purges at once would only
 * compete for the same deletes.
 */
export class ConnectionPurge extends Construct {
  readonly purger: ServiceFunction;
  readonly rule: Rule;

  constructor(scope: Construct, id: string, props: ConnectionPurgeProps) {
    super(scope, id);
    this.purger = new ServiceFunction(this, "Purger", {
      entry: "purge-deleted-connections",
      description: "Hourly: deletes the data of connections deleted over an hour ago, within a bounded budget",
      ...FUNCTION_SIZES.purge,
      environment: { TABLE_NAME: props.table.table.tableName },
      logRetention: props.logRetention,
      reservedConcurrency: FIXED_RESERVED_CONCURRENCY.Purge,
    });
    props.table.grantItemActions(this.purger.role, TABLE_ACCESS.PurgeDeleted);

    this.rule = new Rule(this, "Rule", {
      description: "Runs the purge of deleted connections' data",
      schedule: Schedule.rate(Duration.minutes(PURGE_INTERVAL_MINUTES)),
      // A missed run is made up by the next one: the purge resumes where the data is.
      targets: [new LambdaFunction(this.purger.alias, { retryAttempts: 2 })],
    });
  }
}
