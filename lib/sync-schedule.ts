import { ArnFormat, Duration, Stack, Validations } from "aws-cdk-lib";
import { Rule, type Schedule } from "aws-cdk-lib/aws-events";
import { SfnStateMachine } from "aws-cdk-lib/aws-events-targets";
import { PolicyStatement } from "aws-cdk-lib/aws-iam";
import { LogGroup, RetentionDays } from "aws-cdk-lib/aws-logs";
import { BlockPublicAccess, Bucket, BucketEncryption, type CfnBucket } from "aws-cdk-lib/aws-s3";
import { DefinitionBody, LogLevel, StateMachine, StateMachineType } from "aws-cdk-lib/aws-stepfunctions";
import { Construct } from "constructs";
import { DISPATCH_MAP_STATE, loadDispatchDefinition } from "../statemachine/dispatch-definition";
import type { RecordTable } from "./record-table";
import { FUNCTION_SIZES, ServiceFunction } from "./service-function";
import { grantServiceEvents } from "./sync-functions";
import { vendedLogGroupName, type SyncStateMachine } from "./sync-state-machine";
import { TABLE_ACCESS } from "./table-access";

export interface SyncScheduleProps {
  readonly table: RecordTable;
  readonly syncStateMachine: SyncStateMachine;
  readonly schedule: Schedule;
  readonly enabled: boolean;
  /** Context maxConcurrentRuns: the cap on the dispatch Map's runs at once (less the runs already live). */
  readonly maxConcurrentRuns: number;
  readonly logRetention: RetentionDays;
  /** syncSchedule as given (`1h`, `rate(2 hours)`, `off`): the tick's interval, and the default freshness_hours (twice it). */
  readonly scheduleLabel: string;
}

/**
 * The schedule tick: an EventBridge rule (context `syncSchedule`, default 1h
 * like the local runtime's DEFAULT_SCHEDULE) starts the dispatch state
 * machine, statemachine/dispatch.asl.json (the file the local runtime runs).
 * It lists the connections a page at a time, in batches (ListConnections),
 * and a Distributed Map whose children at once (MaxConcurrencyPath, from
 * ListConnections' count of the live runs) x batch size is at most context
 * maxConcurrentRuns less the runs live, runs one child per batch: it claims the batch's run locks
 * (ClaimRuns), runs each run's first segment in the Express page loop and
 * hands the runs that need more to the sync state machine, all with
 * startExecution.sync:2, holding its slots until they have ended: past the
 * cap, batches wait in the Map, so no Lambda walks the fleet and the tick has
 * no 5-minute ceiling (docs/fleet-scale.md, docs/cost.md).
 */
export class SyncSchedule extends Construct {
  /** One function behind the tick's Lambda Task states (ListConnections, ClaimRuns, ReleaseRun). */
  readonly dispatcher: ServiceFunction;
  readonly stateMachine: StateMachine;
  readonly stateMachineName: string;
  readonly logGroup: LogGroup;
  readonly rule: Rule;
  /** Where the tick's Distributed Map writes its children's results (ResultWriter), so a failed child never fills the tick's state. */
  readonly results: Bucket;

  constructor(scope: Construct, id: string, props: SyncScheduleProps) {
    super(scope, id);
    const stack = Stack.of(this);
    this.dispatcher = new ServiceFunction(this, "Dispatcher", {
      entry: "dispatcher",
      description: "Schedule tick: lists connections (ListConnections), takes run locks (ClaimRuns), releases a run that cannot start (ReleaseRun)",
      ...FUNCTION_SIZES.dispatcher,
      environment: {
        TABLE_NAME: props.table.table.tableName,
        STATE_MACHINE_ARN: props.syncStateMachine.stateMachine.stateMachineArn,
        SYNC_SCHEDULE: props.scheduleLabel,
      },
      logRetention: props.logRetention,
    });
    props.table.grantItemActions(this.dispatcher.role, TABLE_ACCESS.Dispatcher);
    // A paused connection gets no run, so the tick tells when it turns stale (lambdas/domain/sync/stale-notice.ts).
    grantServiceEvents(this.dispatcher);
    // A lock held by an execution is taken over only once Step Functions says that execution has ended: it never starts one.
    props.syncStateMachine.grantDescribeRuns(this.dispatcher.role);

    // "ResultWriter (Map)": without it a failed child's result (its input, error and cause) is returned in the Map's own
    // output, which must fit 256 KiB ("Step Functions service quotas"); written to S3, the output is their location only.
    this.results = new Bucket(this, "Results", {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      // The same retention as the tick's logs, which say the same things (run ids, errors).
      lifecycleRules: [{ expiration: Duration.days(props.logRetention === RetentionDays.INFINITE ? 3_650 : props.logRetention) }],
    });

    const definition = loadDispatchDefinition(props.maxConcurrentRuns);
    // The role may write under the ResultWriter's Prefix only, read from the definition (one source).
    const resultsPrefix = String((definition.States[DISPATCH_MAP_STATE]!["ResultWriter"] as { Parameters: { Prefix: string } }).Parameters.Prefix);

    this.stateMachineName = `${stack.stackName}-Dispatch`;
    this.logGroup = new LogGroup(this, "Logs", { logGroupName: vendedLogGroupName(this.stateMachineName), retention: props.logRetention });
    this.stateMachine = new StateMachine(this, "StateMachine", {
      stateMachineName: this.stateMachineName,
      stateMachineType: StateMachineType.STANDARD,
      definitionBody: DefinitionBody.fromString(JSON.stringify(definition, null, 2)),
      definitionSubstitutions: {
        DispatcherFunctionArn: this.dispatcher.alias.functionArn,
        SyncStateMachineArn: props.syncStateMachine.stateMachine.stateMachineArn,
        SyncPagesStateMachineArn: props.syncStateMachine.pagesStateMachine.stateMachineArn,
        DispatchResultsBucketName: this.results.bucketName,
      },
      logs: { destination: this.logGroup, level: LogLevel.ERROR, includeExecutionData: true },
      tracingEnabled: true,
    });
    const role = this.stateMachine;
    role.addToRolePolicy(
      new PolicyStatement({ actions: ["lambda:InvokeFunction"], resources: [this.dispatcher.alias.functionArn] }),
    );
    // RunSync: startExecution.sync:2 starts a sync execution and follows it (DescribeExecution, StopExecution when the
    // item is stopped) through the managed EventBridge rule Step Functions keeps for .sync integrations.
    role.addToRolePolicy(new PolicyStatement({ actions: ["states:StartExecution"], resources: [props.syncStateMachine.stateMachine.stateMachineArn] }));
    role.addToRolePolicy(
      new PolicyStatement({ actions: ["states:DescribeExecution", "states:StopExecution"], resources: [props.syncStateMachine.executionsArn()] }),
    );
    // FirstSegment: startExecution.sync:2 of the Express page loop, as the sync state machine's RunPages.
    role.addToRolePolicy(new PolicyStatement({ actions: ["states:StartExecution"], resources: [props.syncStateMachine.pagesStateMachine.stateMachineArn] }));
    role.addToRolePolicy(
      new PolicyStatement({ actions: ["states:DescribeExecution", "states:StopExecution"], resources: props.syncStateMachine.pagesExecutionsArns() }),
    );
    role.addToRolePolicy(
      new PolicyStatement({
        actions: ["events:PutTargets", "events:PutRule", "events:DescribeRule"],
        resources: [
          stack.formatArn({ service: "events", resource: "rule", resourceName: "StepFunctionsGetEventsForStepFunctionsExecutionRule" }),
        ],
      }),
    );
    // ResultWriter: the actions "ResultWriter (Map)" lists for exporting to S3, under the definition's prefix only.
    role.addToRolePolicy(
      new PolicyStatement({
        actions: ["s3:PutObject", "s3:GetObject", "s3:ListMultipartUploadParts", "s3:AbortMultipartUpload"],
        resources: [this.results.arnForObjects(`${resultsPrefix}/*`)],
      }),
    );
    // The Distributed Map runs each item as a child execution of this state machine.
    role.addToRolePolicy(new PolicyStatement({ actions: ["states:StartExecution"], resources: [this.ownArn()] }));
    role.addToRolePolicy(new PolicyStatement({ actions: ["states:DescribeExecution", "states:StopExecution"], resources: [this.ownExecutionsArn()] }));
    // Redriving a failed Map Run redrives its failed children: RedriveExecution on them, as aws-cdk-lib's DistributedMap
    // grants (https://docs.aws.amazon.com/step-functions/latest/dg/redrive-map-run.html).
    role.addToRolePolicy(new PolicyStatement({ actions: ["states:RedriveExecution"], resources: [this.ownExecutionsArn()] }));

    this.rule = new Rule(this, "Rule", {
      description: "Starts the schedule tick (context syncSchedule)",
      schedule: props.schedule,
      enabled: props.enabled,
      // A missed tick is made up by the next one: a tick is idempotent (a connection with a run in progress is skipped).
      targets: [new SfnStateMachine(this.stateMachine, { retryAttempts: 2 })],
    });

    Validations.of(this.stateMachine.role).acknowledge({
      id: "AwsSolutions-IAM5[Resource::*]",
      reason:
        "Added by CDK for logging and X-Ray tracing (log delivery and xray actions have no resource-level permission). Every other statement of this role names its resources.",
    });
    Validations.of(this.stateMachine.role).acknowledge({
      id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:states:<AWS::Region>:<AWS::AccountId>:execution:${props.syncStateMachine.stateMachineName}:*]`,
      reason: "DescribeExecution/StopExecution take an execution ARN and a run's execution name is not known in advance: the sync state machine's executions only.",
    });
    for (const executions of [`express:${props.syncStateMachine.pagesStateMachineName}:*`, `execution:${props.syncStateMachine.pagesStateMachineName}:*`]) {
      Validations.of(this.stateMachine.role).acknowledge({
        id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:states:<AWS::Region>:<AWS::AccountId>:${executions}]`,
        reason:
          "FirstSegment (startExecution.sync:2) follows and may stop the executions of the Express page-loop state machine, whose names are not known in advance: that state machine's executions only (the documented policy of the .sync integration).",
      });
    }
    Validations.of(this.stateMachine.role).acknowledge({
      id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:states:<AWS::Region>:<AWS::AccountId>:execution:${this.stateMachineName}/*]`,
      reason: "The Distributed Map's child executions are named by Step Functions (<state machine>/<map run>:<id>): this state machine's child executions only.",
    });
    Validations.of(this.stateMachine.role).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${Stack.of(this).getLogicalId(this.results.node.defaultChild as CfnBucket)}.Arn>/${resultsPrefix}/*]`,
      reason: "The Map Run names its result objects (<prefix>/<map run id>/...): the tick's results bucket under its prefix only.",
    });
    Validations.of(this.results).acknowledge({
      id: "AwsSolutions-S1",
      reason: "Only the tick's state machine writes here (its role, TLS only, no public access); its CloudTrail data events and the tick's logs say who wrote what, and the objects expire with the logs.",
    });
    Validations.of(this.stateMachine).acknowledge({
      id: "CloudFormation-Validate::E1029",
      reason:
        "The ${...} placeholders in DefinitionString are filled by the resource's DefinitionSubstitutions (a Step Functions feature), not by Fn::Sub. test/cdk/dispatch.test.ts checks that every placeholder has its substitution.",
    });
    Validations.of(this.stateMachine).acknowledge({
      id: "AwsSolutions-SF1",
      reason: "Logs at ERROR level on purpose, as the sync state machine: every event is in the execution history; failures reach the DispatchFailed alarm.",
    });
  }

  /** arn:...:stateMachine:<name>, built from the fixed name (a Ref would be circular in its own policy). */
  ownArn(): string {
    return Stack.of(this).formatArn({ service: "states", resource: "stateMachine", resourceName: this.stateMachineName, arnFormat: ArnFormat.COLON_RESOURCE_NAME });
  }

  /** The Distributed Map's child executions: arn:...:execution:<name>/<map run label>:<id>. */
  ownExecutionsArn(): string {
    return Stack.of(this).formatArn({ service: "states", resource: "execution", resourceName: `${this.stateMachineName}/*`, arnFormat: ArnFormat.COLON_RESOURCE_NAME });
  }
}
