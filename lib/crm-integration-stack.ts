import { CfnOutput, Stack, type StackProps } from "aws-cdk-lib";
import type { Construct } from "constructs";
import { Alarms } from "./alarms";
import { ConsoleHosting } from "./console-hosting";
import { ServiceDashboard } from "./dashboard";
import { readDeployConfig, type DeployConfig } from "./deploy-config";
import { OnboardingApi } from "./onboarding-api";
import { RecordTable } from "./record-table";
import type { ServiceFunction } from "./service-function";
import { SourceTokenKey } from "./source-token-key";
import { SyncFunctions } from "./sync-functions";
import { SyncSchedule } from "./sync-schedule";
import { ConnectionPurge } from "./connection-purge";
import { SyncStateMachine } from "./sync-state-machine";
import { WebhookDelivery } from "./webhook-delivery";

/**
 * The whole service in one stack: the record table, the source-token key,
 * the sync state machine and its Task functions, the scheduled dispatcher,
 * the webhooks' deliveries, the onboarding HTTP API, the owner's console (S3 + CloudFront, docs/console-hosting.md),
 * the alarms and the dashboard. Configuration comes from CDK
 * context (lib/deploy-config.ts); the stack is environment-agnostic, so
 * `cdk synth` needs no AWS account.
 */
/** The stack's id in bin/app.ts: its name, and the prefix CloudFormation gives its functions' names. */
export const STACK_NAME = "CrmIntegration";

export class CrmIntegrationStack extends Stack {
  readonly config: DeployConfig;
  readonly table: RecordTable;
  readonly tokenKey: SourceTokenKey;
  readonly syncFunctions: SyncFunctions;
  readonly syncStateMachine: SyncStateMachine;
  readonly syncSchedule: SyncSchedule;
  readonly purge: ConnectionPurge;
  readonly webhooks: WebhookDelivery;
  readonly api: OnboardingApi;
  readonly console: ConsoleHosting;
  readonly alarms: Alarms;
  readonly dashboard: ServiceDashboard;

  constructor(scope: Construct, id: string, props?: StackProps) {
    super(scope, id, props);
    const config = (this.config = readDeployConfig(this.node));
    const logRetention = config.logRetention;

    this.table = new RecordTable(this, "Records", { keepLegacyNewestIndex: config.keepLegacyNewestIndex });
    this.tokenKey = new SourceTokenKey(this, "SourceTokens");
    this.syncFunctions = new SyncFunctions(this, "SyncTasks", {
      table: this.table,
      tokenKey: this.tokenKey,
      logRetention,
      pageTaskConcurrency: config.pageTaskConcurrency,
      scheduleLabel: config.syncScheduleLabel,
    });
    this.syncStateMachine = new SyncStateMachine(this, "Sync", { functions: this.syncFunctions, logRetention });
    this.syncSchedule = new SyncSchedule(this, "Schedule", {
      table: this.table,
      syncStateMachine: this.syncStateMachine,
      schedule: config.syncSchedule,
      enabled: config.syncScheduleEnabled,
      maxConcurrentRuns: config.maxConcurrentRuns,
      logRetention,
      scheduleLabel: config.syncScheduleLabel,
    });
    this.purge = new ConnectionPurge(this, "Purge", { table: this.table, logRetention });
    this.webhooks = new WebhookDelivery(this, "Webhooks", { table: this.table, tokenKey: this.tokenKey, logRetention });
    this.api = new OnboardingApi(this, "Onboarding", {
      table: this.table,
      tokenKey: this.tokenKey,
      syncStateMachine: this.syncStateMachine,
      jwtIssuer: config.jwtIssuer,
      jwtAudience: config.jwtAudience,
      logRetention,
      apiConcurrency: config.apiConcurrency,
      throttle: { rateLimit: config.apiThrottleRate, burstLimit: config.apiThrottleBurst },
      scheduleLabel: config.syncScheduleLabel,
    });
    this.console = new ConsoleHosting(this, "Console", {
      httpApi: this.api.httpApi,
      buildDir: config.consoleBuildDir,
      oidcIssuer: config.jwtIssuer,
      oidcClientId: config.consoleClientId,
      connectOrigins: config.consoleConnectOrigins,
      logRetention,
      ...(config.consoleDomain === undefined ? {} : { domain: config.consoleDomain }),
      ...(config.consoleWebAclArn === undefined ? {} : { webAclArn: config.consoleWebAclArn }),
    });
    const functions = this.functions();
    this.alarms = new Alarms(this, "Alarms", {
      stateMachine: this.syncStateMachine.stateMachine,
      stateMachineLogs: this.syncStateMachine.logGroup,
      functions,
      dispatchStateMachine: this.syncSchedule.stateMachine,
      dispatchLogs: this.syncSchedule.logGroup,
      dispatcherLogs: this.syncSchedule.dispatcher.logGroup,
      dispatchRule: this.syncSchedule.rule,
      table: this.table.table,
      httpApi: this.api.httpApi,
      alarmEmail: config.alarmEmail,
      noSuccessAlarmHours: config.syncScheduleEnabled ? config.noSuccessAlarmHours : undefined,
    });
    this.dashboard = new ServiceDashboard(this, "Dashboard", {
      stateMachine: this.syncStateMachine.stateMachine,
      pageTask: this.syncFunctions.tasks.SyncPage,
      functions,
      table: this.table.table,
      httpApi: this.api.httpApi,
      alarms: this.alarms,
    });

    new CfnOutput(this, "ApiUrl", { value: this.api.url, description: "Onboarding API base URL (routes under /api/v1)" });
    new CfnOutput(this, "StateMachineArn", { value: this.syncStateMachine.stateMachine.stateMachineArn });
    new CfnOutput(this, "TableName", { value: this.table.table.tableName });
    new CfnOutput(this, "SourceTokenKeyArn", { value: this.tokenKey.key.keyArn });
    new CfnOutput(this, "AlarmTopicArn", { value: this.alarms.topic.topicArn });
    new CfnOutput(this, "ConsoleUrl", { value: this.console.url, description: "The owner's console (its API under /api/ on the same origin)" });
    new CfnOutput(this, "ConsoleDistributionId", { value: this.console.distribution.distributionId, description: "CloudFront distribution of the console" });
    new CfnOutput(this, "DashboardName", { value: this.dashboard.dashboard.dashboardName, description: "CloudWatch dashboard of the service" });
  }

  /** The stack's functions, by a short name (alarms, dashboard, tests). */
  functions(): Record<string, ServiceFunction> {
    const tasks = this.syncFunctions.tasks;
    return {
      BeginRun: tasks.BeginRun,
      SyncPage: tasks.SyncPage,
      EntityFailed: tasks.EntityFailed,
      StopRun: tasks.StopRun,
      FinishRun: tasks.FinishRun,
      Dispatcher: this.syncSchedule.dispatcher,
      Api: this.api.apiFunction,
      TestConnectionApi: this.api.testConnectionFunction,
      OpenApi: this.api.openApiFunction,
      PreflightWorker: this.api.preflightWorkerFunction,
      PreflightFailed: this.api.preflightFailedFunction,
      PurgeDeleted: this.purge.purger,
      ManagerRefresh: this.syncFunctions.managerRefresh,
      WebhookDelivery: this.webhooks.function,
    };
  }
}
