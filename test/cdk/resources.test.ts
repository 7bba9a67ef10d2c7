import { Match } from "aws-cdk-lib/assertions";
import { describe, expect, test } from "vitest";
import { PUBLIC_ROUTE_KEYS, ROUTES } from "../../lambdas/onboarding/http/routes";
import { RECORD_TABLE } from "../../lambdas/store/table-definition";
import { functionId, logicalId, serviceFunctions, synthesize, TEST_CONTEXT } from "./stack-fixture";

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

  test("the source-token key: symmetric, rotated, retained, with an alias", () => {
    template.resourceCountIs("AWS::KMS::Key", 1);
    template.hasResource("AWS::KMS::Key", {
      DeletionPolicy: "Retain",
      Properties: { EnableKeyRotation: true, KeySpec: Match.absent() },
    });
    template.hasResourceProperties("AWS::KMS::Alias", { AliasName: "alias/CrmIntegration/source-tokens" });
  });

  test("eight Lambdas: nodejs22.x on arm64, ESM bundle handler, source maps on", () => {
    template.resourceCountIs("AWS::Lambda::Function", 8);
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

  test("each Lambda gets exactly the environment its composition root reads (lambdas/aws/aws-config.ts)", () => {
    const env = (name: string) => Object.keys(template.toJSON().Resources[functionId(functions[name]!)].Properties.Environment.Variables).sort();
    const syncTask = ["ALLOW_LOOPBACK_SOURCES", "KMS_KEY_ID", "NODE_OPTIONS", "TABLE_NAME"];
    for (const name of ["BeginRun", "FetchPage", "EntityFailed", "StopRun", "FinishRun"]) expect(env(name), name).toEqual(syncTask);
    expect(env("Dispatcher")).toEqual(["NODE_OPTIONS", "STATE_MACHINE_ARN", "TABLE_NAME"]);
    for (const name of ["Api", "TestConnectionApi"]) expect(env(name), name).toEqual(["ALLOW_LOOPBACK_SOURCES", "KMS_KEY_ID", "NODE_OPTIONS", "STATE_MACHINE_ARN", "TABLE_NAME"]);
    const all = template.findResources("AWS::Lambda::Function");
    for (const fn of Object.values(all)) {
      const variables = fn.Properties.Environment.Variables as Record<string, unknown>;
      if ("ALLOW_LOOPBACK_SOURCES" in variables) expect(variables.ALLOW_LOOPBACK_SOURCES).toBe("false");
      if ("TABLE_NAME" in variables) expect(variables.TABLE_NAME).toEqual({ Ref: logicalId(stack.table.table) });
      if ("KMS_KEY_ID" in variables) expect(variables.KMS_KEY_ID).toEqual({ "Fn::GetAtt": [logicalId(stack.tokenKey.key), "Arn"] });
      if ("STATE_MACHINE_ARN" in variables) expect(variables.STATE_MACHINE_ARN).toEqual({ Ref: logicalId(stack.syncStateMachine.stateMachine) });
    }
  });

  test("timeouts: the page task 60 s (source timeout is 20 s); the API functions under API Gateway's 30 s", () => {
    const props = (name: string) => template.toJSON().Resources[functionId(functions[name]!)].Properties;
    expect(props("FetchPage").Timeout).toBe(60);
    expect(props("Api").Timeout).toBeLessThanOrEqual(29);
    expect(props("TestConnectionApi").Timeout).toBeLessThanOrEqual(29);
    for (const name of Object.keys(functions)) expect(props(name).MemorySize, name).toBeGreaterThanOrEqual(256);
  });

  test("every log group has the retention from context; each Lambda logs to its own", () => {
    const groups = template.findResources("AWS::Logs::LogGroup");
    // 8 functions + the state machine + the API's access logs
    expect(Object.keys(groups)).toHaveLength(10);
    for (const group of Object.values(groups)) expect(group.Properties.RetentionInDays).toBe(TEST_CONTEXT.logRetentionDays);
    const seen = new Set<string>();
    for (const [name, fn] of Object.entries(functions)) {
      const config = template.toJSON().Resources[functionId(fn)].Properties.LoggingConfig;
      expect(config, name).toEqual({ LogGroup: { Ref: logicalId(fn.logGroup) } });
      seen.add(logicalId(fn.logGroup));
    }
    expect(seen.size).toBe(8);
  });

  test("the EventBridge rule runs the dispatcher on the syncSchedule from context", () => {
    template.resourceCountIs("AWS::Events::Rule", 1);
    template.hasResourceProperties("AWS::Events::Rule", {
      ScheduleExpression: "rate(15 minutes)",
      State: "ENABLED",
      Targets: [Match.objectLike({ Arn: { "Fn::GetAtt": [functionId(functions.Dispatcher!), "Arn"] } })],
    });
    template.hasResourceProperties("AWS::Lambda::Permission", {
      Action: "lambda:InvokeFunction",
      FunctionName: { "Fn::GetAtt": [functionId(functions.Dispatcher!), "Arn"] },
      Principal: "events.amazonaws.com",
      SourceArn: { "Fn::GetAtt": [logicalId(stack.syncSchedule.rule), "Arn"] },
    });
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

  test("the callsSource route goes to the TestConnectionApi function, every other route to the Api function", () => {
    const resources = template.toJSON().Resources as Record<string, { Type: string; Properties: Record<string, any> }>;
    const targetFunction = (route: { Properties: Record<string, any> }) => {
      const integrationId = route.Properties.Target["Fn::Join"][1][1].Ref as string;
      return resources[integrationId]!.Properties.IntegrationUri["Fn::GetAtt"][0] as string;
    };
    for (const route of Object.values(resources).filter((resource) => resource.Type === "AWS::ApiGatewayV2::Route")) {
      const callsSource = ROUTES.find((r) => r.routeKey === route.Properties.RouteKey)?.callsSource === true;
      expect(targetFunction(route), route.Properties.RouteKey).toBe(functionId(callsSource ? functions.TestConnectionApi! : functions.Api!));
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

  test("alarms: failed and timed-out executions, errors of every Lambda, API 5xx; all on the alarm topic", () => {
    const alarms = Object.values(template.findResources("AWS::CloudWatch::Alarm")).map((alarm) => alarm.Properties);
    const topic = { Ref: logicalId(stack.alarms.topic) };
    for (const alarm of alarms) {
      expect(alarm).toMatchObject({ Threshold: 1, ComparisonOperator: "GreaterThanOrEqualToThreshold", EvaluationPeriods: 1, TreatMissingData: "notBreaching" });
      expect(alarm.AlarmActions).toEqual([topic]);
    }
    const stateMachine = { Ref: logicalId(stack.syncStateMachine.stateMachine) };
    for (const metric of ["ExecutionsFailed", "ExecutionsTimedOut"]) {
      expect(alarms.filter((a) => a.Namespace === "AWS/States" && a.MetricName === metric && JSON.stringify(a.Dimensions) === JSON.stringify([{ Name: "StateMachineArn", Value: stateMachine }]))).toHaveLength(1);
    }
    for (const [name, fn] of Object.entries(functions)) {
      const forFunction = alarms.filter(
        (a) => a.Namespace === "AWS/Lambda" && a.MetricName === "Errors" && JSON.stringify(a.Dimensions) === JSON.stringify([{ Name: "FunctionName", Value: { Ref: functionId(fn) } }]),
      );
      expect(forFunction, name).toHaveLength(1);
    }
    expect(alarms.filter((a) => a.Namespace === "AWS/ApiGateway" && a.MetricName === "5xx")).toHaveLength(1);
    expect(alarms).toHaveLength(2 + 8 + 1);
  });

  test("the alarm topic requires TLS and mails alarmEmail when it is set (and only then)", () => {
    template.hasResourceProperties("AWS::SNS::Subscription", { Protocol: "email", Endpoint: TEST_CONTEXT.alarmEmail });
    template.hasResourceProperties("AWS::SNS::TopicPolicy", {
      PolicyDocument: { Statement: [Match.objectLike({ Effect: "Deny", Condition: { Bool: { "aws:SecureTransport": "false" } } })] },
    });
    const { template: withoutEmail } = synthesize({ ...TEST_CONTEXT, alarmEmail: undefined });
    withoutEmail.resourceCountIs("AWS::SNS::Subscription", 0);
  });

  test("outputs: the API URL, the state machine, the table, the key, the alarm topic", () => {
    expect(Object.keys(template.toJSON().Outputs).sort()).toEqual(["AlarmTopicArn", "ApiUrl", "SourceTokenKeyArn", "StateMachineArn", "TableName"]);
  });
});
