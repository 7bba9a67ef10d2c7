import { PolicyStatement } from "aws-cdk-lib/aws-iam";
import { Stack } from "aws-cdk-lib";
import type { RetentionDays } from "aws-cdk-lib/aws-logs";
import { Construct } from "constructs";
import type { RecordTable } from "./record-table";
import { FUNCTION_SIZES, ServiceFunction, type EntryPoint } from "./service-function";
import type { SourceTokenKey } from "./source-token-key";
import { TABLE_ACCESS } from "./table-access";

/**
 * The state machine's Task states, each with its Lambda entry point and the
 * DefinitionSubstitutions placeholder that names it in statemachine/sync.asl.json.
 */
export const SYNC_TASKS = {
  BeginRun: { entry: "sync-begin-run", placeholder: "BeginRunFunctionArn", description: "Sync BeginRun task: start or continue a run" },
  SyncPage: { entry: "sync-page", placeholder: "SyncPageFunctionArn", description: "Sync SyncPage task: one source page, validated and written" },
  EntityFailed: { entry: "sync-entity-failed", placeholder: "EntityFailedFunctionArn", description: "Sync EntityFailed task: record a failed entity, go on" },
  StopRun: { entry: "sync-stop-run", placeholder: "StopRunFunctionArn", description: "Sync StopRun task: fail the entities left after a 401 or a lost connection" },
  FinishRun: { entry: "sync-finish-run", placeholder: "FinishRunFunctionArn", description: "Sync FinishRun task: close the run, release its lock" },
} as const satisfies Record<string, { entry: EntryPoint; placeholder: string; description: string }>;

export type SyncTaskName = keyof typeof SYNC_TASKS;

export interface SyncFunctionsProps {
  readonly table: RecordTable;
  readonly tokenKey: SourceTokenKey;
  readonly logRetention: RetentionDays;
  /** Reserved concurrency of SyncPage (context pageTaskConcurrency). */
  readonly pageTaskConcurrency: number;
  /** syncSchedule as given (`1h`, `rate(2 hours)`, `off`): FinishRun's default freshness_hours is twice its interval. */
  readonly scheduleLabel: string;
}

/**
 * The five Task functions. Each gets the table actions its code sends
 * (TABLE_ACCESS); only SyncPage calls the source, so only SyncPage may
 * decrypt a token, and only SyncPage has reserved concurrency (it is the one
 * that runs once per page: the others run a few times per run). The others still get KMS_KEY_ID,
 * because they share the sync composition root (lambdas/runtimes/aws/aws-composition.ts),
 * whose configuration requires it; without the grant it is only a name.
 */
export class SyncFunctions extends Construct {
  readonly tasks: Readonly<Record<SyncTaskName, ServiceFunction>>;
  /** Recomputes a connection's per-manager aggregates; FinishRun invokes it asynchronously (docs/analytics-api.md). */
  readonly managerRefresh: ServiceFunction;

  constructor(scope: Construct, id: string, props: SyncFunctionsProps) {
    super(scope, id);
    const environment = {
      TABLE_NAME: props.table.table.tableName,
      KMS_KEY_ID: props.tokenKey.key.keyArn,
      // The SSRF guard refuses loopback and private source addresses in AWS; only the local runtime turns this on.
      ALLOW_LOOPBACK_SOURCES: "false",
      SYNC_SCHEDULE: props.scheduleLabel,
      // FETCH_AHEAD is left unset: the page task's own default (on) is the deployed one; FETCH_AHEAD=false turns it off.
    };
    this.managerRefresh = new ServiceFunction(this, "ManagerRefresh", {
      entry: "manager-refresh",
      description: "Per-manager figures: recompute a connection's aggregates from its stored records (async, from FinishRun)",
      ...FUNCTION_SIZES.managerRefresh,
      environment: { TABLE_NAME: props.table.table.tableName },
      logRetention: props.logRetention,
    });
    props.table.grantItemActions(this.managerRefresh.role, TABLE_ACCESS.ManagerRefresh);
    // The events of the idle window are read newest first through the index.
    props.table.grantNewestIndexQuery(this.managerRefresh.role);
    const make = (name: SyncTaskName): ServiceFunction => {
      const task = SYNC_TASKS[name];
      const fn = new ServiceFunction(this, name, {
        entry: task.entry,
        description: task.description,
        ...(name === "SyncPage" ? FUNCTION_SIZES.syncPage : FUNCTION_SIZES.syncStep),
        environment: name === "FinishRun" ? { ...environment, MANAGER_REFRESH_FUNCTION_NAME: this.managerRefresh.alias.functionArn } : environment,
        logRetention: props.logRetention,
        ...(name === "SyncPage" ? { reservedConcurrency: props.pageTaskConcurrency } : {}),
      });
      props.table.grantItemActions(fn.role, TABLE_ACCESS[name]);
      return fn;
    };
    this.tasks = {
      BeginRun: make("BeginRun"),
      SyncPage: make("SyncPage"),
      EntityFailed: make("EntityFailed"),
      StopRun: make("StopRun"),
      FinishRun: make("FinishRun"),
    };
    props.tokenKey.grantDecryptToken(this.tasks.SyncPage.role);
    // FinishRun sends a run's or an audit's end and a connection going stale.
    grantServiceEvents(this.tasks.FinishRun);
    this.managerRefresh.alias.grantInvoke(this.tasks.FinishRun.role);
  }
}

/**
 * PutEvents on EventBridge's default bus alone, where the service's events go
 * (lambdas/domain/core/service-events.ts): FinishRun's and the schedule tick's
 * Dispatcher's (a paused connection turning stale). https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-use-identity-based.html
 */
export function grantServiceEvents(fn: ServiceFunction): void {
  fn.role.addToPrincipalPolicy(
    new PolicyStatement({
      actions: ["events:PutEvents"],
      resources: [Stack.of(fn).formatArn({ service: "events", resource: "event-bus", resourceName: "default" })],
    }),
  );
}
