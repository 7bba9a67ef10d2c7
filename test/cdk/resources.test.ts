import { Match } from "aws-cdk-lib/assertions";
import { describe, expect, test } from "vitest";
import { PUBLIC_ROUTE_KEYS, ROUTES } from "../../lambdas/handlers/http/routes";
import { RECORD_TABLE } from "../../lambdas/adapters/dynamodb/table/table-definition";
import { METRIC, METRIC_SERVICE } from "../../lambdas/domain/core/metric-names";
import { BEGIN_FAILED_CAUSE, CUSTOMER_OR_EXPECTED_ERRORS, OUR_FAIL_STATE_ERRORS, SUSTAINED_PERIODS, THRESHOLDS } from "../../lib/alarms";
import { CONTEXT_DEFAULTS } from "../../lib/deploy-config";
import { DISPATCH_START_FAILED_MESSAGE } from "../../lambdas/domain/sync/dispatch-tick";
import { matchesFilterPattern } from "./metric-filter-pattern";
import { TTL_ATTRIBUTE } from "../../lib/record-table";
import { loadSyncDefinition } from "../../statemachine/sync-definition";
import { readConfig, SyncTaskConfigSchema } from "../../lambdas/runtimes/aws/aws-config";
import { actionsOf, functionId, logicalId, roleId, roleStatements, serviceFunctions, synthesize, TEST_CONTEXT } from "./stack-fixture";

const { stack, template } = synthesize();
const functions = serviceFunctions(stack);

describe("CDK stack: resources", () => {
  test("the record table: on demand, keys from RECORD_TABLE, point-in-time recovery, deletion protection, retained", () => {
    template.resourceCountIs("AWS::DynamoDB::GlobalTable", 1);
    template.hasResource("AWS::DynamoDB::GlobalTable", {
      DeletionPolicy: "Retain",
      UpdateReplacePolicy: "Retain",
      Properties: {
        BillingMode: "PAY_PER_REQUEST",
        KeySchema: [
          { AttributeName: RECORD_TABLE.partitionKey.name, KeyType: "HASH" },
          { AttributeName: RECORD_TABLE.sortKey.name, KeyType: "RANGE" },
        ],
        Replicas: [
          Match.objectLike({
            DeletionProtectionEnabled: true,
            PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
          }),
        ],
      },
    });
  });

  test("two keys, the source tokens' and the table's: symmetric, rotated, retained, each with an alias", () => {
    template.resourceCountIs("AWS::KMS::Key", 2);
    for (const key of [stack.tokenKey.key, stack.table.key]) {
      const resource = template.toJSON().Resources[logicalId(key)];
      expect(resource).toMatchObject({ DeletionPolicy: "Retain", Properties: { EnableKeyRotation: true } });
      expect(resource.Properties.KeySpec).toBeUndefined();
    }
    template.hasResourceProperties("AWS::KMS::Alias", { AliasName: "alias/CrmIntegration/source-tokens" });
    template.hasResourceProperties("AWS::KMS::Alias", { AliasName: "alias/CrmIntegration/record-table" });
  });

  test("data protection: the table is encrypted with its customer-managed key and has the TTL attribute", () => {
    template.hasResourceProperties("AWS::DynamoDB::GlobalTable", {
      SSESpecification: { SSEEnabled: true, SSEType: "KMS" },
      Replicas: [Match.objectLike({ SSESpecification: { KMSMasterKeyId: { "Fn::GetAtt": [logicalId(stack.table.key), "Arn"] } } })],
      TimeToLiveSpecification: { AttributeName: TTL_ATTRIBUTE, Enabled: true },
    });
  });

  // "Global secondary indexes in DynamoDB": each index write is billed beside the table's, sized by what it projects;
  // one index is created or deleted per table update.
  test("GSI write cost: the newest-first index projects its keys only; keepLegacyNewestIndex keeps the old ALL index for the one deploy that adds the new one", () => {
    const indexesOf = (from: typeof template) =>
      Object.values(from.findResources("AWS::DynamoDB::GlobalTable")).flatMap((table) =>
        ((table.Properties as { GlobalSecondaryIndexes: Array<{ IndexName: string; Projection: { ProjectionType: string } }> }).GlobalSecondaryIndexes).map((index) => [index.IndexName, index.Projection.ProjectionType]),
      );
    expect(indexesOf(template)).toEqual([[RECORD_TABLE.newestIndex.name, "KEYS_ONLY"]]);
    const { template: upgrading } = synthesize({ ...TEST_CONTEXT, keepLegacyNewestIndex: "true" });
    expect(indexesOf(upgrading)).toEqual([
      [RECORD_TABLE.newestIndex.name, "KEYS_ONLY"],
      [RECORD_TABLE.legacyNewestIndexName, "ALL"],
    ]);
    expect(() => synthesize({ ...TEST_CONTEXT, keepLegacyNewestIndex: "yes" })).toThrow(/keepLegacyNewestIndex must be true or false/);
  }, 120_000);

  test("API stage throttling: rate and burst from context, over all routes", () => {
    template.hasResourceProperties("AWS::ApiGatewayV2::Stage", {
      DefaultRouteSettings: { ThrottlingRateLimit: CONTEXT_DEFAULTS.apiThrottleRate, ThrottlingBurstLimit: CONTEXT_DEFAULTS.apiThrottleBurst },
    });
    const { template: changed } = synthesize({ ...TEST_CONTEXT, apiThrottleRate: "10", apiThrottleBurst: "20" });
    changed.hasResourceProperties("AWS::ApiGatewayV2::Stage", { DefaultRouteSettings: { ThrottlingRateLimit: 10, ThrottlingBurstLimit: 20 } });
  });

  test("the service's fourteen Lambdas: nodejs22.x on arm64, ESM bundle handler, source maps on", () => {
    // The service's fourteen, plus aws-cdk-lib's BucketDeployment handler for the console (test/cdk/console-hosting.test.ts).
    template.resourceCountIs("AWS::Lambda::Function", Object.keys(functions).length + 1);
    expect(Object.keys(functions)).toHaveLength(14);
    for (const [name, fn] of Object.entries(functions)) {
      const resource = template.toJSON().Resources[functionId(fn)];
      expect(resource, name).toBeDefined();
      expect(resource.Properties).toMatchObject({
        Runtime: "nodejs22.x",
        Architectures: ["arm64"],
        Handler: "index.handler",
        Environment: { Variables: { NODE_OPTIONS: "--enable-source-maps" } },
      });
    }
  });

  test("each Lambda gets exactly the environment its composition root reads (lambdas/runtimes/aws/aws-config.ts)", () => {
    // Powertools' service and metrics namespace go to every function (lib/service-function.ts).
    const env = (name: string) =>
      Object.keys(template.toJSON().Resources[functionId(functions[name]!)].Properties.Environment.Variables)
        .filter((key) => !key.startsWith("POWERTOOLS_"))
        .sort();
    const syncTask = ["ALLOW_LOOPBACK_SOURCES", "KMS_KEY_ID", "NODE_OPTIONS", "TABLE_NAME"];
    // The sync tasks also read the schedule: FinishRun judges freshness against twice its interval.
    for (const name of ["BeginRun", "SyncPage", "EntityFailed", "StopRun"]) {
      expect(env(name), name).toEqual(["ALLOW_LOOPBACK_SOURCES", "KMS_KEY_ID", "NODE_OPTIONS", "SYNC_SCHEDULE", "TABLE_NAME"]);
    }
    // FinishRun also names the refresh it invokes at each run's end.
    expect(env("FinishRun")).toEqual(["ALLOW_LOOPBACK_SOURCES", "KMS_KEY_ID", "MANAGER_REFRESH_FUNCTION_NAME", "NODE_OPTIONS", "SYNC_SCHEDULE", "TABLE_NAME"]);
    expect(env("ManagerRefresh")).toEqual(["NODE_OPTIONS", "TABLE_NAME"]);
    // The tick reads it too: it checks paused connections' freshness against twice its interval.
    expect(env("Dispatcher")).toEqual(["NODE_OPTIONS", "STATE_MACHINE_ARN", "SYNC_SCHEDULE", "TABLE_NAME"]);
    for (const name of ["Api", "TestConnectionApi"]) expect(env(name), name).toEqual(["ALLOW_LOOPBACK_SOURCES", "KMS_KEY_ID", "NODE_OPTIONS", "PREFLIGHT_FUNCTION_NAME", "STATE_MACHINE_ARN", "SYNC_SCHEDULE", "TABLE_NAME"]);
    expect(env("PreflightWorker")).toEqual(syncTask);
    expect(env("OpenApi")).toEqual(["NODE_OPTIONS"]);
    expect(env("PurgeDeleted")).toEqual(["NODE_OPTIONS", "TABLE_NAME"]);
    const all = template.findResources("AWS::Lambda::Function");
    for (const fn of Object.values(all)) {
      const variables = fn.Properties.Environment.Variables as Record<string, unknown>;
      if ("ALLOW_LOOPBACK_SOURCES" in variables) expect(variables.ALLOW_LOOPBACK_SOURCES).toBe("false");
      if ("TABLE_NAME" in variables) expect(variables.TABLE_NAME).toEqual({ Ref: logicalId(stack.table.table) });
      if ("KMS_KEY_ID" in variables) expect(variables.KMS_KEY_ID).toEqual({ "Fn::GetAtt": [logicalId(stack.tokenKey.key), "Arn"] });
      if ("STATE_MACHINE_ARN" in variables) expect(variables.STATE_MACHINE_ARN).toEqual({ Ref: logicalId(stack.syncStateMachine.stateMachine) });
    }
  });

  test("fetch ahead is on in AWS (docs/throughput.md#fetch-ahead): SyncPage's environment leaves FETCH_AHEAD unset, and the page task reads what the stack deploys as on", () => {
    const variables = template.toJSON().Resources[functionId(functions["SyncPage"]!)].Properties.Environment.Variables as Record<string, unknown>;
    expect(variables).not.toHaveProperty("FETCH_AHEAD");
    // CloudFormation resolves the references at deploy time; any string stands for them here.
    const deployed = Object.fromEntries(Object.entries(variables).map(([key, value]) => [key, typeof value === "string" ? value : `resolved-${key}`]));
    expect(readConfig(SyncTaskConfigSchema, deployed).FETCH_AHEAD).toBe(true);
  });

  test("timeouts: the page task 100 s (its own and the early request, 20 s each: test/statemachine/express-page-loop.unit.test.ts); the API functions under API Gateway's 30 s", () => {
    const props = (name: string) => template.toJSON().Resources[functionId(functions[name]!)].Properties;
    expect(props("SyncPage").Timeout).toBe(100);
    expect(props("Api").Timeout).toBeLessThanOrEqual(29);
    expect(props("TestConnectionApi").Timeout).toBeLessThanOrEqual(29);
    for (const name of Object.keys(functions)) expect(props(name).MemorySize, name).toBeGreaterThanOrEqual(256);
  });

  test("every log group has the retention from context; each Lambda logs to its own", () => {
    const groups = template.findResources("AWS::Logs::LogGroup");
    // every function + the three state machines (sync, its Express page loop, schedule tick) + the API's access logs + the console deployment handler's
    expect(Object.keys(groups)).toHaveLength(Object.keys(functions).length + 5);
    for (const group of Object.values(groups)) expect(group.Properties.RetentionInDays).toBe(TEST_CONTEXT.logRetentionDays);
    const seen = new Set<string>();
    for (const [name, fn] of Object.entries(functions)) {
      const config = template.toJSON().Resources[functionId(fn)].Properties.LoggingConfig;
      expect(config.LogGroup, name).toEqual({ Ref: logicalId(fn.logGroup) });
      seen.add(logicalId(fn.logGroup));
    }
    expect(seen.size).toBe(Object.keys(functions).length);
  });

  test("the purge of deleted connections runs hourly on its own rule, one at a time (reserved concurrency 1)", () => {
    template.hasResourceProperties("AWS::Events::Rule", {
      ScheduleExpression: "rate(1 hour)",
      State: "ENABLED",
      Targets: [Match.objectLike({ Arn: { Ref: logicalId(functions.PurgeDeleted!.alias) } })],
    });
    template.hasResourceProperties("AWS::Lambda::Function", {
      FunctionName: Match.absent(),
      ReservedConcurrentExecutions: 1,
      Description: Match.stringLikeRegexp("deletes the data of connections deleted"),
    });
  });

  test("log level from Lambda's log controls: every function logs JSON, application level INFO, system level WARN (Powertools obeys AWS_LAMBDA_LOG_LEVEL)", () => {
    for (const [name, fn] of Object.entries(functions)) {
      const config = template.toJSON().Resources[functionId(fn)].Properties.LoggingConfig;
      expect(config, name).toEqual({ LogGroup: { Ref: logicalId(fn.logGroup) }, LogFormat: "JSON", ApplicationLogLevel: "INFO", SystemLogLevel: "WARN" });
    }
  });

  test("active tracing on every function (X-Ray), and each role may put trace segments", () => {
    for (const [name, fn] of Object.entries(functions)) {
      expect(template.toJSON().Resources[functionId(fn)].Properties.TracingConfig, name).toEqual({ Mode: "Active" });
      const xray = roleStatements(template, roleId(fn)).filter((statement) => actionsOf(statement).some((action) => action.startsWith("xray:")));
      expect(xray.flatMap(actionsOf).sort(), name).toEqual(["xray:PutTelemetryRecords", "xray:PutTraceSegments"]);
    }
  });

  test("the EventBridge rule starts the schedule tick's state machine on the syncSchedule from context", () => {
    // The tick's rule, the purge's, and the webhooks' two (below).
    template.resourceCountIs("AWS::Events::Rule", 4);
    template.hasResourceProperties("AWS::Events::Rule", {
      ScheduleExpression: "rate(15 minutes)",
      State: "ENABLED",
      Targets: [Match.objectLike({ Arn: { Ref: logicalId(stack.syncSchedule.stateMachine) }, RetryPolicy: { MaximumRetryAttempts: 2 } })],
    });
  });

  test("the webhooks' function runs on the service's own events (default bus, its source and three detail types) and on a one-minute sweep", () => {
    const target = [Match.objectLike({ Arn: { Ref: logicalId(functions.WebhookDelivery!.alias) } })];
    template.hasResourceProperties("AWS::Events::Rule", {
      EventPattern: { source: ["crm.custom-integration"], "detail-type": ["Sync Run Finished", "Audit Finished", "Connection Stale"] },
      State: "ENABLED",
      Targets: [Match.objectLike({ Arn: { Ref: logicalId(functions.WebhookDelivery!.alias) }, RetryPolicy: { MaximumRetryAttempts: 2 } })],
    });
    template.hasResourceProperties("AWS::Events::Rule", { ScheduleExpression: "rate(1 minute)", State: "ENABLED", Targets: target });
    const env = template.toJSON().Resources[functionId(functions.WebhookDelivery!)].Properties.Environment.Variables;
    // No loopback endpoint in a deployment; the table, and the key the secrets are kept under.
    expect(env).toMatchObject({ ALLOW_LOOPBACK_SOURCES: "false", TABLE_NAME: { Ref: logicalId(stack.table.table) }, KMS_KEY_ID: { "Fn::GetAtt": [logicalId(stack.tokenKey.key), "Arn"] } });
  });

  test("the HTTP API has exactly the routes of ROUTES plus the public API descriptions", () => {
    const routes = Object.values(template.findResources("AWS::ApiGatewayV2::Route")).map((route) => route.Properties.RouteKey as string);
    expect(routes.sort()).toEqual([...ROUTES.map((route) => route.routeKey), ...PUBLIC_ROUTE_KEYS].sort());
  });

  test("the JWT authorizer takes issuer and audience from context and guards every route but the public API descriptions", () => {
    template.resourceCountIs("AWS::ApiGatewayV2::Authorizer", 1);
    template.hasResourceProperties("AWS::ApiGatewayV2::Authorizer", {
      AuthorizerType: "JWT",
      IdentitySource: ["$request.header.Authorization"],
      JwtConfiguration: { Issuer: TEST_CONTEXT.jwtIssuer, Audience: ["crm-web", "crm-cli"] },
    });
    const authorizerId = logicalId(stack.api.httpApi.node.findChild("OwnerSession"));
    for (const route of Object.values(template.findResources("AWS::ApiGatewayV2::Route"))) {
      if (PUBLIC_ROUTE_KEYS.includes(route.Properties.RouteKey)) {
        expect(route.Properties.AuthorizationType).toBe("NONE");
        expect(route.Properties.AuthorizerId).toBeUndefined();
      } else {
        expect(route.Properties.AuthorizationType, route.Properties.RouteKey).toBe("JWT");
        expect(route.Properties.AuthorizerId).toEqual({ Ref: authorizerId });
      }
    }
  });

  test("the callsSource route goes to the TestConnectionApi function, the public API descriptions to their own function, every other route to the Api function", () => {
    const resources = template.toJSON().Resources as Record<string, { Type: string; Properties: Record<string, any> }>;
    const targetAlias = (route: { Properties: Record<string, any> }) => {
      const integrationId = route.Properties.Target["Fn::Join"][1][1].Ref as string;
      return resources[integrationId]!.Properties.IntegrationUri.Ref as string;
    };
    for (const route of Object.values(resources).filter((resource) => resource.Type === "AWS::ApiGatewayV2::Route")) {
      const key = route.Properties.RouteKey as string;
      const callsSource = ROUTES.find((r) => r.routeKey === key)?.callsSource === true;
      const expected = PUBLIC_ROUTE_KEYS.includes(key) ? functions.OpenApi! : callsSource ? functions.TestConnectionApi! : functions.Api!;
      expect(targetAlias(route), key).toBe(logicalId(expected.alias));
    }
    template.allResourcesProperties("AWS::ApiGatewayV2::Integration", { IntegrationType: "AWS_PROXY", PayloadFormatVersion: "2.0" });
  });

  test("the $default stage writes access logs (no headers, no bodies) to a log group with retention", () => {
    template.hasResourceProperties("AWS::ApiGatewayV2::Stage", {
      StageName: "$default",
      AutoDeploy: true,
      AccessLogSettings: {
        DestinationArn: { "Fn::GetAtt": [logicalId(stack.api.accessLogs), "Arn"] },
        Format: Match.stringLikeRegexp("\\$context\\.requestId"),
      },
    });
    const format = Object.values(template.findResources("AWS::ApiGatewayV2::Stage"))[0]!.Properties.AccessLogSettings.Format as string;
    expect(format).not.toMatch(/header|body/i);
  });

  const alarms = () =>
    Object.fromEntries(
      Object.entries(template.findResources("AWS::CloudWatch::Alarm")).map(([id, alarm]) => [id, alarm.Properties as Record<string, any>]),
    );
  const alarmNamed = (name: string) => alarms()[logicalId(stack.alarms.alarms.find((alarm) => alarm.node.id === name)!)]!;
  const dispatchStartFailuresFilter = () =>
    Object.values(template.findResources("AWS::Logs::MetricFilter"))
      .map((resource) => resource.Properties as Record<string, any>)
      .find((properties) => properties.MetricTransformations[0].MetricName === "DispatchStartFailures")!;

  test("alarms: only on failures of ours, all on the alarm topic, none that one customer's flaky source can fire", () => {
    const all = Object.values(alarms());
    const topic = { Ref: logicalId(stack.alarms.topic) };
    expect(stack.alarms.alarms.map((alarm) => alarm.node.id).sort()).toEqual(
      [
        "SyncRunsFailedOurs",
        "SyncRunsCouldNotBegin",
        "EntityFailuresOurs",
        "PageRetriesOurs",
        "SyncExecutionsTimedOut",
        "NoSuccessfulRun",
        "DispatchFailed",
        "DispatchStartFailures",
        "DispatchInvocationsFailed",
        "LambdaErrors",
        "ManagerRefreshErrors",
        "WebhookDeliveryErrors",
        "LambdaThrottles",
        "TableSystemErrors",
        "TableThrottles",
        "ApiServerErrors",
      ].sort(),
    );
    for (const alarm of all) expect(alarm.AlarmActions).toEqual([topic]);
    // No alarm on the sync's failed executions or on the page task's errors: those include customers' sources.
    // (The schedule tick's own failed executions are ours: DispatchFailed, below.)
    const syncStateMachine = JSON.stringify({ Ref: logicalId(stack.syncStateMachine.stateMachine) });
    for (const alarm of all) {
      const metrics = [alarm, ...((alarm.Metrics as { MetricStat?: { Metric: Record<string, unknown> } }[] | undefined) ?? []).map((m) => m.MetricStat?.Metric ?? {})];
      const onSyncExecutionsFailed = metrics.filter((metric) => metric["MetricName"] === "ExecutionsFailed" && JSON.stringify(metric["Dimensions"] ?? []).includes(syncStateMachine));
      expect(onSyncExecutionsFailed).toEqual([]);
    }
    // No alarm reads a metric of the customers' failures: every EMF alarm names fault "ours", or is the total of successful runs.
    const emfAlarms = all.filter((alarm) => JSON.stringify(alarm.Dimensions ?? []).includes('"service"'));
    expect(emfAlarms.length).toBe(3);
    for (const alarm of emfAlarms) {
      const dimensions = Object.fromEntries((alarm.Dimensions as { Name: string; Value: string }[]).map((d) => [d.Name, d.Value]));
      if (alarm.MetricName === METRIC.runsSucceeded) expect(dimensions).toEqual({ service: METRIC_SERVICE });
      else expect(dimensions).toEqual({ service: METRIC_SERVICE, fault: "ours" });
    }
    expect(JSON.stringify(all)).not.toContain('"customer"');
    const errors = alarmNamed("LambdaErrors");
    const errorFunctions = (errors.Metrics as { MetricStat?: { Metric: { Dimensions: { Value: { Ref: string } }[] } } }[])
      .filter((metric) => metric.MetricStat)
      .map((metric) => metric.MetricStat!.Metric.Dimensions[0]!.Value.Ref);
    expect(errorFunctions).not.toContain(functionId(functions.SyncPage!));
    // OpenApi's errors are API 5xx answers, which ApiServerErrors counts; the managers' refresh has an alarm of its own.
    expect(errorFunctions).not.toContain(functionId(functions.OpenApi!));
    expect(errorFunctions).toHaveLength(Object.keys(functions).length - 4);
    const refreshErrors = alarmNamed("ManagerRefreshErrors");
    expect(JSON.stringify(refreshErrors.Dimensions)).toContain(functionId(functions.ManagerRefresh!));
    // A receiver's failure is an attempt's outcome, not a function error: the webhooks' alarm fires on ours only.
    expect(JSON.stringify(alarmNamed("WebhookDeliveryErrors").Dimensions)).toContain(functionId(functions.WebhookDelivery!));
  });

  test("alarm on executions that failed with an error of ours: a metric filter on the state machine's ExecutionFailed events, leaving out SyncRunFailed and RunSupersededError", () => {
    const filters = Object.values(template.findResources("AWS::Logs::MetricFilter")).map((filter) => filter.Properties as Record<string, any>);
    const ours = filters.find((filter) => filter.MetricTransformations[0].MetricName === "SyncRunsFailedOurs")!;
    expect(ours.LogGroupName).toEqual({ Ref: logicalId(stack.syncStateMachine.logGroup) });
    expect(ours.FilterPattern).toContain('$.type = "ExecutionFailed"');
    for (const name of CUSTOMER_OR_EXPECTED_ERRORS) expect(ours.FilterPattern).toContain(`$.details.error != "${name}"`);
    // The Fail states' errors of the definition are each judged: left out (the customer's or expected), or ours.
    for (const name of OUR_FAIL_STATE_ERRORS) expect(ours.FilterPattern).not.toContain(`"${name}"`);
    const failErrors = Object.values((loadSyncDefinition() as { States: Record<string, { Type: string; Error?: string }> }).States)
      .filter((state) => state.Type === "Fail")
      .map((state) => state.Error);
    expect([...new Set(failErrors)].sort()).toEqual([...CUSTOMER_OR_EXPECTED_ERRORS, ...OUR_FAIL_STATE_ERRORS].sort());
    expect(alarmNamed("SyncRunsFailedOurs")).toMatchObject({ MetricName: "SyncRunsFailedOurs", Threshold: 1 });

    const begin = filters.find((filter) => filter.MetricTransformations[0].MetricName === "SyncRunsCouldNotBegin")!;
    expect(begin.FilterPattern).toContain(`$.details.cause = "${BEGIN_FAILED_CAUSE}*"`);
    const beginFailed = (loadSyncDefinition() as { States: Record<string, { Cause?: string }> }).States["BeginFailed"]!;
    expect(beginFailed.Cause!.startsWith(BEGIN_FAILED_CAUSE)).toBe(true);
    expect(alarmNamed("SyncRunsCouldNotBegin")).toMatchObject({ Threshold: THRESHOLDS.runsCouldNotBegin, Period: 900 });
  });

  test("alarm on entities failed by errors of ours: EntityFailures (EMF) under [service, fault=ours], any one; page retries of ours only when sustained", () => {
    expect(alarmNamed("EntityFailuresOurs")).toMatchObject({
      Namespace: "CrmIntegration/CrmIntegration",
      MetricName: METRIC.entityFailures,
      Dimensions: [
        { Name: "fault", Value: "ours" },
        { Name: "service", Value: METRIC_SERVICE },
      ],
      Statistic: "Sum",
      Period: 300,
      Threshold: THRESHOLDS.entityFailuresOurs,
      ComparisonOperator: "GreaterThanOrEqualToThreshold",
    });
    expect(alarmNamed("PageRetriesOurs")).toMatchObject({
      MetricName: METRIC.pageRetries,
      Dimensions: [
        { Name: "fault", Value: "ours" },
        { Name: "service", Value: METRIC_SERVICE },
      ],
      Threshold: THRESHOLDS.pageRetriesOurs,
      EvaluationPeriods: SUSTAINED_PERIODS,
      DatapointsToAlarm: SUSTAINED_PERIODS,
    });
    // The functions publish into the namespace and under the service the alarms read.
    for (const fn of Object.values(functions)) {
      const env = template.toJSON().Resources[functionId(fn)].Properties.Environment.Variables as Record<string, unknown>;
      expect(env, fn.node.id).toMatchObject({ POWERTOOLS_SERVICE_NAME: METRIC_SERVICE, POWERTOOLS_METRICS_NAMESPACE: "CrmIntegration/CrmIntegration" });
    }
  });

  test("alarm when no run of any connection succeeded in noSuccessAlarmHours: RunsSucceeded (EMF, not ExecutionsSucceeded, which counts hand-overs) < 1 each hour, missing data breaching; none when the schedule is off", () => {
    expect(alarmNamed("NoSuccessfulRun")).toMatchObject({
      Namespace: "CrmIntegration/CrmIntegration",
      MetricName: METRIC.runsSucceeded,
      Dimensions: [{ Name: "service", Value: METRIC_SERVICE }],
      Statistic: "Sum",
      Period: 3600,
      EvaluationPeriods: CONTEXT_DEFAULTS.noSuccessAlarmHours,
      DatapointsToAlarm: CONTEXT_DEFAULTS.noSuccessAlarmHours,
      ComparisonOperator: "LessThanThreshold",
      Threshold: 1,
      TreatMissingData: "breaching",
    });
    const { stack: off } = synthesize({ ...TEST_CONTEXT, syncSchedule: "off" });
    expect(off.alarms.alarms.map((alarm) => alarm.node.id)).not.toContain("NoSuccessfulRun");
  });

  test("dispatch failed: alarms on the schedule tick's executions failing, on runs it could not start (StartExecution refused, from its log), and on EventBridge failing to start it", () => {
    const failed = alarmNamed("DispatchFailed") as Record<string, any>;
    expect(failed.Threshold).toBe(1);
    const metrics = (failed.Metrics as Record<string, any>[]).filter((metric) => metric.MetricStat !== undefined);
    expect(metrics.map((metric) => metric.MetricStat.Metric.MetricName).sort()).toEqual(["ExecutionsFailed", "ExecutionsTimedOut"]);
    for (const metric of metrics) expect(metric.MetricStat.Metric.Dimensions).toEqual([{ Name: "StateMachineArn", Value: { Ref: logicalId(stack.syncSchedule.stateMachine) } }]);
    const filter = dispatchStartFailuresFilter();
    expect(filter.MetricTransformations[0].MetricValue).toBe("1");
    expect(alarmNamed("DispatchStartFailures")).toMatchObject({ Threshold: THRESHOLDS.dispatchStartFailures });
    expect(alarmNamed("DispatchInvocationsFailed")).toMatchObject({
      Namespace: "AWS/Events",
      MetricName: "FailedInvocations",
      Dimensions: [{ Name: "RuleName", Value: { Ref: logicalId(stack.syncSchedule.rule) } }],
    });
  });

  test("DispatchStartFailures counts runs whose start failed for good, once each, and never a start that a retry recovered nor a started run that timed out (as its description says)", () => {
    const filter = dispatchStartFailuresFilter();
    const counted = (logGroup: unknown, events: Record<string, unknown>[]) =>
      JSON.stringify(filter.LogGroupName) === JSON.stringify(logGroup) ? events.filter((event) => matchesFilterPattern(filter.FilterPattern, event)).length : 0;
    // What the schedule tick's state machine logs at ERROR level for a hand-over refused once, then started by its
    // Retry: a TaskFailed event (https://docs.aws.amazon.com/step-functions/latest/dg/cw-logs.html#cloudwatch-log-level).
    const refusedOnce = [{ type: "TaskFailed", details: { resourceType: "states", resource: "startExecution.sync:2", error: "StepFunctions.ExecutionLimitExceeded" } }];
    expect(counted({ Ref: logicalId(stack.syncSchedule.logGroup) }, refusedOnce)).toBe(0);
    // The dispatcher's line when it releases a run whose start failed after every retry (its Catch): counted once; a
    // run whose own execution failed (States.TaskFailed) is the sync alarms' business, not this one's.
    const dispatcherLogs = { Ref: logicalId(stack.syncSchedule.dispatcher.logGroup) };
    const released = (error: string) => ({ level: "ERROR", message: DISPATCH_START_FAILED_MESSAGE, connection_id: "c1", run_id: "r1", error });
    expect(counted(dispatcherLogs, [released("StepFunctions.ExecutionLimitExceeded")])).toBe(1);
    expect(counted(dispatcherLogs, [released("States.TaskFailed")])).toBe(0);
    // "Error handling": States.Timeout is a Task that outlived its TimeoutSeconds: RunSync's run lasting past a day,
    // FirstSegment's segment past 360 s. The run had started; its own alarm (SyncExecutionsTimedOut) covers it.
    expect(counted(dispatcherLogs, [released("States.Timeout")])).toBe(0);
  });

  test("throttling alarms (Lambda, DynamoDB) fire only when sustained, since the state machine rides out a burst", () => {
    for (const name of ["LambdaThrottles", "TableThrottles"]) {
      expect(alarmNamed(name), name).toMatchObject({ EvaluationPeriods: SUSTAINED_PERIODS, DatapointsToAlarm: SUSTAINED_PERIODS });
    }
    expect(SUSTAINED_PERIODS * 5).toBeGreaterThan(1);
    expect(alarmNamed("SyncExecutionsTimedOut")).toMatchObject({ MetricName: "ExecutionsTimedOut", Threshold: 1 });
    expect(alarmNamed("TableSystemErrors")).toMatchObject({ Threshold: THRESHOLDS.dynamoSystemErrors });
    expect(alarmNamed("ApiServerErrors")).toMatchObject({ Namespace: "AWS/ApiGateway", MetricName: "5xx", Threshold: THRESHOLDS.apiServerErrors });
  });

  test("a CloudWatch dashboard in the stack: executions, the page task, DynamoDB, the API; its name is an output", () => {
    template.resourceCountIs("AWS::CloudWatch::Dashboard", 1);
    const dashboard = Object.values(template.findResources("AWS::CloudWatch::Dashboard"))[0]!;
    expect(dashboard.Properties.DashboardName).toBe("CrmIntegration-operations");
    const body = JSON.stringify(dashboard.Properties.DashboardBody);
    for (const metric of [
      "ExecutionsStarted",
      "ExecutionsSucceeded",
      "ExecutionsFailed",
      "ExecutionsTimedOut",
      "Duration",
      "Throttles",
      "Errors",
      "ConcurrentExecutions",
      "ConsumedWriteCapacityUnits",
      "ConsumedReadCapacityUnits",
      "ThrottledRequests",
      "SystemErrors",
      "4xx",
      "5xx",
      "Latency",
      "SyncRunsFailedOurs",
      METRIC.pagesSynced,
      METRIC.recordsSynced,
      METRIC.pagesThrottled,
      METRIC.pageRetries,
      METRIC.entityFailures,
      METRIC.runsSucceeded,
    ]) {
      expect(body, metric).toContain(metric);
    }
    expect(template.toJSON().Outputs.DashboardName.Value).toEqual({ Ref: logicalId(stack.dashboard.dashboard) });
  });

  test("the alarm topic requires TLS and mails alarmEmail when it is set (and only then)", () => {
    template.hasResourceProperties("AWS::SNS::Subscription", { Protocol: "email", Endpoint: TEST_CONTEXT.alarmEmail });
    template.hasResourceProperties("AWS::SNS::TopicPolicy", {
      PolicyDocument: { Statement: [Match.objectLike({ Effect: "Deny", Condition: { Bool: { "aws:SecureTransport": "false" } } })] },
    });
    const { template: withoutEmail } = synthesize({ ...TEST_CONTEXT, alarmEmail: undefined });
    withoutEmail.resourceCountIs("AWS::SNS::Subscription", 0);
  });

  test("outputs: the API URL, the state machine, the table, the key, the alarm topic, the dashboard, the console's URL and distribution", () => {
    expect(Object.keys(template.toJSON().Outputs).sort()).toEqual([
      "AlarmTopicArn",
      "ApiUrl",
      "ConsoleDistributionId",
      "ConsoleUrl",
      "DashboardName",
      "SourceTokenKeyArn",
      "StateMachineArn",
      "TableName",
    ]);
  });
});
