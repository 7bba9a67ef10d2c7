import { Rule, type Schedule } from "aws-cdk-lib/aws-events";
import { LambdaFunction } from "aws-cdk-lib/aws-events-targets";
import type { RetentionDays } from "aws-cdk-lib/aws-logs";
import { Construct } from "constructs";
import type { RecordTable } from "./record-table";
import { FUNCTION_SIZES, ServiceFunction } from "./service-function";
import type { SyncStateMachine } from "./sync-state-machine";
import { TABLE_ACCESS } from "./table-access";

export interface SyncScheduleProps {
  readonly table: RecordTable;
  readonly syncStateMachine: SyncStateMachine;
  readonly schedule: Schedule;
  readonly enabled: boolean;
  readonly logRetention: RetentionDays;
}

/**
 * The scheduled dispatcher: an EventBridge rule (context `syncSchedule`,
 * default 1h like the local runtime's DEFAULT_SCHEDULE) runs dispatchSyncs,
 * which starts a sync for every connection and skips those with a run in
 * progress. It needs the table and the right to start and describe sync
 * executions; it never touches a token.
 */
export class SyncSchedule extends Construct {
  readonly dispatcher: ServiceFunction;
  readonly rule: Rule;

  constructor(scope: Construct, id: string, props: SyncScheduleProps) {
    super(scope, id);
    this.dispatcher = new ServiceFunction(this, "Dispatcher", {
      entry: "dispatch-syncs",
      description: "Scheduled dispatcher: starts a sync for every connection",
      ...FUNCTION_SIZES.dispatcher,
      environment: {
        TABLE_NAME: props.table.table.tableName,
        STATE_MACHINE_ARN: props.syncStateMachine.stateMachine.stateMachineArn,
      },
      logRetention: props.logRetention,
    });
    props.table.grantItemActions(this.dispatcher.role, TABLE_ACCESS.Dispatcher);
    props.syncStateMachine.grantStartRuns(this.dispatcher.role);

    this.rule = new Rule(this, "Rule", {
      description: "Runs the sync dispatcher (context syncSchedule)",
      schedule: props.schedule,
      enabled: props.enabled,
      // A missed tick is made up by the next one: a dispatch is idempotent (a connection with a run in progress is skipped).
      targets: [new LambdaFunction(this.dispatcher.alias, { retryAttempts: 2 })],
    });
  }
}
