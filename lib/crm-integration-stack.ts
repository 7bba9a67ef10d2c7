import { Annotations, CfnOutput, Stack, type StackProps } from "aws-cdk-lib";
import type { Construct } from "constructs";
import { Alarms } from "./alarms";
import { readDeployConfig, type DeployConfig } from "./deploy-config";
import { OnboardingApi } from "./onboarding-api";
import { RecordTable } from "./record-table";
import { SourceTokenKey } from "./source-token-key";
import { SyncFunctions } from "./sync-functions";
import { SyncSchedule } from "./sync-schedule";
import { SyncStateMachine } from "./sync-state-machine";

/**
 * The whole service in one stack: the record table, the source-token key,
 * the sync state machine and its Task functions, the scheduled dispatcher,
 * the onboarding HTTP API, and the alarms. Configuration comes from CDK
 * context (lib/deploy-config.ts); the stack is environment-agnostic, so
 * `cdk synth` needs no AWS account.
 */
export class CrmIntegrationStack extends Stack {
  readonly config: DeployConfig;
  readonly table: RecordTable;
  readonly tokenKey: SourceTokenKey;
  readonly syncFunctions: SyncFunctions;
  readonly syncStateMachine: SyncStateMachine;
  readonly syncSchedule: SyncSchedule;
  readonly api: OnboardingApi;
  readonly alarms: Alarms;

  constructor(scope: Construct, id: string, props?: StackProps) {
    super(scope, id, props);
    const config = (this.config = readDeployConfig(this.node));
    if (config.usesPlaceholderJwt) {
      Annotations.of(this).addWarningV2(
        "crm:placeholder-jwt",
        "jwtIssuer/jwtAudience are placeholders: the API will reject every token. Deploy with -c jwtIssuer=<IdP issuer URL> -c jwtAudience=<client id> (README, Operations (AWS)).",
      );
    }
    const logRetention = config.logRetention;

    this.table = new RecordTable(this, "Records");
    this.tokenKey = new SourceTokenKey(this, "SourceTokens");
    this.syncFunctions = new SyncFunctions(this, "SyncTasks", { table: this.table, tokenKey: this.tokenKey, logRetention });
    this.syncStateMachine = new SyncStateMachine(this, "Sync", { functions: this.syncFunctions, logRetention });
    this.syncSchedule = new SyncSchedule(this, "Schedule", {
      table: this.table,
      syncStateMachine: this.syncStateMachine,
      schedule: config.syncSchedule,
      enabled: config.syncScheduleEnabled,
      logRetention,
    });
    this.api = new OnboardingApi(this, "Onboarding", {
      table: this.table,
      tokenKey: this.tokenKey,
      syncStateMachine: this.syncStateMachine,
      jwtIssuer: config.jwtIssuer,
      jwtAudience: config.jwtAudience,
      logRetention,
    });
    const tasks = this.syncFunctions.tasks;
    this.alarms = new Alarms(this, "Alarms", {
      stateMachine: this.syncStateMachine.stateMachine,
      functions: {
        BeginRun: tasks.BeginRun.function,
        FetchPage: tasks.FetchPage.function,
        EntityFailed: tasks.EntityFailed.function,
        StopRun: tasks.StopRun.function,
        FinishRun: tasks.FinishRun.function,
        Dispatcher: this.syncSchedule.dispatcher.function,
        Api: this.api.apiFunction.function,
        TestConnectionApi: this.api.testConnectionFunction.function,
      },
      httpApi: this.api.httpApi,
      alarmEmail: config.alarmEmail,
    });

    new CfnOutput(this, "ApiUrl", { value: this.api.url, description: "Onboarding API base URL (routes under /api/v1)" });
    new CfnOutput(this, "StateMachineArn", { value: this.syncStateMachine.stateMachine.stateMachineArn });
    new CfnOutput(this, "TableName", { value: this.table.table.tableName });
    new CfnOutput(this, "SourceTokenKeyArn", { value: this.tokenKey.key.keyArn });
    new CfnOutput(this, "AlarmTopicArn", { value: this.alarms.topic.topicArn });
  }
}
