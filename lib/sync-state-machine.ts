import { readFileSync } from "node:fs";
import { ArnFormat, Stack, Validations } from "aws-cdk-lib";
import { PolicyStatement, type Role } from "aws-cdk-lib/aws-iam";
import { LogGroup, type RetentionDays } from "aws-cdk-lib/aws-logs";
import { DefinitionBody, LogLevel, StateMachine, StateMachineType } from "aws-cdk-lib/aws-stepfunctions";
import { Construct } from "constructs";
import { SYNC_DEFINITION_PATH, SYNC_PAGES_DEFINITION_PATH } from "../statemachine/sync-definition";
import { SYNC_TASKS, type SyncFunctions, type SyncTaskName } from "./sync-functions";

/** The EventBridge rule Step Functions manages for `.sync` integrations with Step Functions itself. */
export const SYNC_EVENTS_RULE = "StepFunctionsGetEventsForStepFunctionsExecutionRule";

/**
 * A state machine's log group: under /aws/vendedlogs/, which CloudWatch Logs lets Step Functions deliver to without an
 * entry in the account's log resource policy (5,120 characters, shared by every logging state machine and service):
 * https://docs.aws.amazon.com/step-functions/latest/dg/bp-cwl.html. Named after the state machine, like the console's.
 */
export const vendedLogGroupName = (stateMachineName: string): string => `/aws/vendedlogs/states/${stateMachineName}`;

export interface SyncStateMachineProps {
  readonly functions: SyncFunctions;
  readonly logRetention: RetentionDays;
}

/**
 * The sync state machines, the same files the local runtime runs: the run's
 * Standard workflow (statemachine/sync.asl.json: 429 waits, ContinueAsNew, the
 * run's end), whose RunPages Task runs the page loop in segments of an Express
 * workflow (statemachine/sync-pages.asl.json), with `startExecution.sync:2`.
 * The Express one's five `${...FunctionArn}` placeholders are filled by
 * CloudFormation's DefinitionSubstitutions with each Task function's `live`
 * alias ARN, the Standard one's `${SyncPagesStateMachineArn}` with the Express
 * state machine's ARN. Why two: docs/cost.md.
 *
 * The definition goes into the template as the file's text
 * (DefinitionBody.fromString of the file, not fromFile): fromFile would upload
 * it as an S3 asset, hiding it from the template and from the tests that
 * compare the two.
 */
export class SyncStateMachine extends Construct {
  readonly stateMachine: StateMachine;
  /** Fixed, so the state machine's own ARN can be written before it exists (ContinueAsNew starts itself). */
  readonly stateMachineName: string;
  readonly logGroup: LogGroup;
  /** The page loop: one segment of at most PAGE_TASKS_PER_SEGMENT page tasks per execution, 5 minutes at most. */
  readonly pagesStateMachine: StateMachine;
  readonly pagesStateMachineName: string;
  readonly pagesLogGroup: LogGroup;

  constructor(scope: Construct, id: string, props: SyncStateMachineProps) {
    super(scope, id);
    const stack = Stack.of(this);
    this.stateMachineName = `${stack.stackName}-Sync`;
    this.logGroup = new LogGroup(this, "Logs", { logGroupName: vendedLogGroupName(this.stateMachineName), retention: props.logRetention });

    this.pagesStateMachineName = `${stack.stackName}-SyncPages`;
    this.pagesLogGroup = new LogGroup(this, "PagesLogs", { logGroupName: vendedLogGroupName(this.pagesStateMachineName), retention: props.logRetention });

    const functions = props.functions.tasks;
    const names = Object.keys(SYNC_TASKS) as SyncTaskName[];
    this.pagesStateMachine = new StateMachine(this, "PagesStateMachine", {
      stateMachineName: this.pagesStateMachineName,
      stateMachineType: StateMachineType.EXPRESS,
      definitionBody: DefinitionBody.fromString(readFileSync(SYNC_PAGES_DEFINITION_PATH, "utf8")),
      // The `live` alias, not the function: a page runs the version it was invoked on, and a deploy moves the alias
      // between two pages, never under one (lib/service-function.ts).
      definitionSubstitutions: Object.fromEntries(names.map((name) => [SYNC_TASKS[name].placeholder, functions[name].alias.functionArn])),
      // Express keeps no execution history: its log group is the only record of a failed segment. ERROR with
      // execution data says which run and why; the state holds ids and cursors only, never a token or a page.
      logs: { destination: this.pagesLogGroup, level: LogLevel.ERROR, includeExecutionData: true },
      tracingEnabled: true,
    });
    // The Task states name the functions' `live` aliases: InvokeFunction on exactly these five alias ARNs (an
    // unqualified function ARN in a policy does not cover invoking an alias, nor the reverse).
    this.pagesStateMachine.addToRolePolicy(
      new PolicyStatement({ actions: ["lambda:InvokeFunction"], resources: names.map((name) => functions[name].alias.functionArn) }),
    );

    this.stateMachine = new StateMachine(this, "StateMachine", {
      stateMachineName: this.stateMachineName,
      stateMachineType: StateMachineType.STANDARD,
      definitionBody: DefinitionBody.fromString(readFileSync(SYNC_DEFINITION_PATH, "utf8")),
      definitionSubstitutions: { SyncPagesStateMachineArn: this.pagesStateMachine.stateMachineArn },
      // With execution data, an ERROR line says which run and why (error and cause); the state holds ids and
      // cursors only, never a token or a page (docs/state-machine.md).
      logs: { destination: this.logGroup, level: LogLevel.ERROR, includeExecutionData: true },
      tracingEnabled: true,
    });

    // ContinueAsNew: states:startExecution on itself, by the constructed ARN (a Ref would be circular).
    this.stateMachine.addToRolePolicy(new PolicyStatement({ actions: ["states:StartExecution"], resources: [this.ownArn()] }));
    // RunPages (startExecution.sync:2): start the Express child, follow and stop its executions, and the managed
    // EventBridge rule through which Step Functions learns that a child has ended (the documented policy of the
    // .sync integration).
    this.stateMachine.addToRolePolicy(
      new PolicyStatement({ actions: ["states:StartExecution"], resources: [this.pagesStateMachine.stateMachineArn] }),
    );
    this.stateMachine.addToRolePolicy(
      new PolicyStatement({ actions: ["states:DescribeExecution", "states:StopExecution"], resources: this.pagesExecutionsArns() }),
    );
    this.stateMachine.addToRolePolicy(
      new PolicyStatement({
        actions: ["events:PutTargets", "events:PutRule", "events:DescribeRule"],
        resources: [stack.formatArn({ service: "events", resource: "rule", resourceName: SYNC_EVENTS_RULE })],
      }),
    );

    Validations.of(this.pagesStateMachine.role).acknowledge({
      id: "AwsSolutions-IAM5[Resource::*]",
      reason:
        "Added by CDK for logging and X-Ray tracing: logs:CreateLogDelivery, GetLogDelivery, UpdateLogDelivery, DeleteLogDelivery, ListLogDeliveries, PutResourcePolicy, DescribeResourcePolicies, DescribeLogGroups and xray:PutTraceSegments, PutTelemetryRecords, GetSamplingRules, GetSamplingTargets support no resource-level permission, so their only resource is '*'. Every other statement of this role names its resources.",
    });
    Validations.of(this.pagesStateMachine).acknowledge({
      id: "CloudFormation-Validate::E1029",
      reason:
        "The ${...FunctionArn} placeholders in DefinitionString are filled by the resource's DefinitionSubstitutions (a Step Functions feature), not by Fn::Sub; the template linter does not know that property. test/cdk/state-machine.test.ts checks that every placeholder has its substitution.",
    });
    Validations.of(this.pagesStateMachine).acknowledge({
      id: "AwsSolutions-SF1",
      reason:
        "Logs at ERROR level on purpose: ALL would write some 7 log events per page to CloudWatch Logs (about $0.035 per million records at $0.50 per GB ingested), a quarter of the whole per-million budget besides the record writes (docs/cost.md). Failed segments are logged with their execution data, and the parent's Retry and alarms see them.",
    });
    for (const executions of [`express:${this.pagesStateMachineName}:*`, `execution:${this.pagesStateMachineName}:*`]) {
      Validations.of(this.stateMachine.role).acknowledge({
        id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:states:<AWS::Region>:<AWS::AccountId>:${executions}]`,
        reason:
          "RunPages (startExecution.sync:2) follows and may stop the executions of the Express page-loop state machine, whose names are not known in advance: the resource is that state machine's executions only (the documented policy of the .sync integration).",
      });
    }
    Validations.of(this.stateMachine.role).acknowledge({
      id: "AwsSolutions-IAM5[Resource::*]",
      reason:
        "Added by CDK for logging and X-Ray tracing: logs:CreateLogDelivery, GetLogDelivery, UpdateLogDelivery, DeleteLogDelivery, ListLogDeliveries, PutResourcePolicy, DescribeResourcePolicies, DescribeLogGroups and xray:PutTraceSegments, PutTelemetryRecords, GetSamplingRules, GetSamplingTargets support no resource-level permission, so their only resource is '*'. Every other statement of this role names its resources.",
    });
    Validations.of(this.stateMachine).acknowledge({
      id: "CloudFormation-Validate::E1029",
      reason:
        "The ${...FunctionArn} placeholders in DefinitionString are filled by the resource's DefinitionSubstitutions (a Step Functions feature), not by Fn::Sub; the template linter does not know that property. test/cdk/state-machine.test.ts checks that every placeholder has its substitution.",
    });
    Validations.of(this.stateMachine).acknowledge({
      id: "AwsSolutions-SF1",
      reason:
        "Logs at ERROR level on purpose: every event of an execution is already in Step Functions' execution history (90 days), a sync takes ~7 events per page, and ALL would copy all of them to CloudWatch Logs for every page of every customer. Failed runs are caught by the ExecutionsFailed alarm.",
    });
  }

  /** arn:<partition>:states:<region>:<account>:stateMachine:<name>, built from the fixed name. */
  ownArn(): string {
    return Stack.of(this).formatArn({
      service: "states",
      resource: "stateMachine",
      resourceName: this.stateMachineName,
      arnFormat: ArnFormat.COLON_RESOURCE_NAME,
    });
  }

  /** The Express child's executions: arn:...:express:<name>:* (and :execution:, which the .sync policy names too). */
  pagesExecutionsArns(): string[] {
    return ["express", "execution"].map((resource) =>
      Stack.of(this).formatArn({
        service: "states",
        resource,
        resourceName: `${this.pagesStateMachineName}:*`,
        arnFormat: ArnFormat.COLON_RESOURCE_NAME,
      }),
    );
  }

  /** arn:...:execution:<name>:*, the executions of this state machine only. */
  executionsArn(): string {
    return Stack.of(this).formatArn({
      service: "states",
      resource: "execution",
      resourceName: `${this.stateMachineName}:*`,
      arnFormat: ArnFormat.COLON_RESOURCE_NAME,
    });
  }

  /**
   * What a run starter needs (lambdas/adapters/aws/sfn-run-starter.ts): StartExecution
   * on this state machine, DescribeExecution on its executions (to tell a dead
   * run's lock from a live one).
   */
  /** The owner's cancel (POST .../syncs/{runId}/cancel): StopExecution on this state machine's executions only. */
  grantStopRuns(role: Role): void {
    role.addToPrincipalPolicy(new PolicyStatement({ actions: ["states:StopExecution"], resources: [this.executionsArn()] }));
  }

  grantStartRuns(role: Role): void {
    role.addToPrincipalPolicy(new PolicyStatement({ actions: ["states:StartExecution"], resources: [this.stateMachine.stateMachineArn] }));
    this.grantDescribeRuns(role);
  }

  /** DescribeExecution on this state machine's executions: tells a dead run's lock from a live one (claimRun). */
  grantDescribeRuns(role: Role): void {
    role.addToPrincipalPolicy(new PolicyStatement({ actions: ["states:DescribeExecution"], resources: [this.executionsArn()] }));
    Validations.of(role).acknowledge({
      id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:states:<AWS::Region>:<AWS::AccountId>:execution:${this.stateMachineName}:*]`,
      reason:
        "states:DescribeExecution takes an execution ARN, and executions are named per run (the run id), so the resource is this state machine's executions, arn:...:execution:<its name>:*. No other state machine's executions match.",
    });
  }
}
