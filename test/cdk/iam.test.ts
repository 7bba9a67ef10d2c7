import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";
import { ENCRYPTION_CONTEXT_KEYS } from "../../lambdas/adapters/aws/kms-token-cipher";
import { RECORD_TABLE } from "../../lambdas/adapters/dynamodb/table/table-definition";
import { TABLE_KEY_ACTIONS } from "../../lib/record-table";
import { KEY_ADMIN_ACTIONS } from "../../lib/source-token-key";
import { ALL_TABLE_ACTIONS, TABLE_ACCESS, type TableUser } from "../../lib/table-access";
import { SYNC_TASKS } from "../../lib/sync-functions";
import { actionsOf, functionId, logicalId, resourcesOf, roleId, roleStatements, serviceFunctions, synthesize, type Statement } from "./stack-fixture";

/** The statement that lets a role Query the records-newest index (and nothing else). */
const isNewestIndexQuery = (statement: Statement) => JSON.stringify(statement.Resource ?? "").includes(`/index/${RECORD_TABLE.newestIndex.name}`);

const { stack, template } = synthesize();
const functions = serviceFunctions(stack);
const resources = template.toJSON().Resources as Record<string, { Type: string; Properties: Record<string, any> }>;
const keyArn = { "Fn::GetAtt": [logicalId(stack.tokenKey.key), "Arn"] };

/** The condition both KMS grants must carry, written out from ENCRYPTION_CONTEXT_KEYS. */
const CONTEXT_CONDITION = {
  "ForAllValues:StringEquals": { "kms:EncryptionContextKeys": [ENCRYPTION_CONTEXT_KEYS.businessAccountId, ENCRYPTION_CONTEXT_KEYS.connectionId] },
  Null: {
    [`kms:EncryptionContext:${ENCRYPTION_CONTEXT_KEYS.businessAccountId}`]: "false",
    [`kms:EncryptionContext:${ENCRYPTION_CONTEXT_KEYS.connectionId}`]: "false",
  },
};

/** Every statement of every identity policy in the template, with the role it is attached to. */
const allStatements: { role: string; statement: Statement }[] = Object.values(resources)
  .filter((resource) => resource.Type === "AWS::IAM::Policy")
  .flatMap((policy) =>
    (policy.Properties.Roles as { Ref: string }[]).flatMap((role) =>
      (policy.Properties.PolicyDocument.Statement as Statement[]).map((statement) => ({ role: role.Ref, statement })),
    ),
  );

const rolesWithAction = (action: string) => [...new Set(allStatements.filter(({ statement }) => actionsOf(statement).includes(action)).map(({ role }) => role))].sort();

describe("CDK stack: IAM", () => {
  test("kms:Decrypt only for the functions that call the source (SyncPage, the test-route function, the preflight worker) and the one that signs webhooks", () => {
    expect(rolesWithAction("kms:Decrypt")).toEqual([roleId(functions.SyncPage!), roleId(functions.TestConnectionApi!), roleId(functions.PreflightWorker!), roleId(functions.WebhookDelivery!)].sort());
  });

  test("events:PutEvents only for FinishRun (a run's or audit's end, stale at a run's end) and the Dispatcher (a paused connection turning stale), on the default event bus alone", () => {
    expect(rolesWithAction("events:PutEvents")).toEqual([roleId(functions.FinishRun!), roleId(functions.Dispatcher!)].sort());
    const statements = allStatements.filter(({ statement }) => actionsOf(statement).includes("events:PutEvents")).map(({ statement }) => statement);
    expect(statements).toHaveLength(2);
    for (const statement of statements) {
      expect(actionsOf(statement)).toEqual(["events:PutEvents"]);
      expect(JSON.stringify(statement.Resource)).toContain(":event-bus/default");
    }
  });

  test("kms:Encrypt only for the onboarding API function (it stores tokens; it never decrypts)", () => {
    expect(rolesWithAction("kms:Encrypt")).toEqual([roleId(functions.Api!)]);
  });

  test("both KMS grants: that one action, on the key's ARN, with the encryption-context condition", () => {
    const kms = allStatements.filter(({ statement }) => actionsOf(statement).some((action) => action.startsWith("kms:")));
    expect(kms).toHaveLength(5);
    for (const { statement } of kms) {
      expect(actionsOf(statement)).toHaveLength(1);
      expect(statement.Effect).toBe("Allow");
      expect(statement.Resource).toEqual(keyArn);
      expect(statement.Condition).toEqual(CONTEXT_CONDITION);
    }
  });

  test("key policies: the account root administers each key and never uses it (no kms:*, no Encrypt or Decrypt)", () => {
    const keys = Object.values(resources).filter((resource) => resource.Type === "AWS::KMS::Key");
    expect(keys).toHaveLength(2);
    for (const key of keys) {
      const statements = key.Properties.KeyPolicy.Statement as (Statement & { Principal: { AWS: unknown } })[];
      const root = statements.filter((statement) => JSON.stringify(statement.Principal).includes(":root"));
      expect(root).toHaveLength(1);
      expect(actionsOf(root[0]!).sort()).toEqual([...KEY_ADMIN_ACTIONS].sort());
      for (const statement of statements) expect(actionsOf(statement)).not.toContain("kms:*");
      for (const action of ["kms:Encrypt", "kms:Decrypt", "kms:GenerateDataKey", "kms:ReEncryptFrom", "kms:ReEncryptTo"]) {
        expect(actionsOf(root[0]!)).not.toContain(action);
      }
    }
  });

  test("the token key's policy names its users: Encrypt for Api, Decrypt for SyncPage, TestConnectionApi, PreflightWorker and WebhookDelivery, each with the encryption-context condition", () => {
    const key = resources[logicalId(stack.tokenKey.key)]!;
    const statements = (key.Properties.KeyPolicy.Statement as (Statement & { Principal: { AWS: unknown } })[]).filter(
      (statement) => !JSON.stringify(statement.Principal).includes(":root"),
    );
    // minimizePolicies merges statements that differ only in principal.
    const principalsOf = (action: string) =>
      statements.filter((statement) => actionsOf(statement).includes(action)).flatMap((statement) => [statement.Principal.AWS].flat());
    const roleArn = (name: string) => ({ "Fn::GetAtt": [roleId(functions[name]!), "Arn"] });
    expect(principalsOf("kms:Encrypt")).toEqual([roleArn("Api")]);
    expect(principalsOf("kms:Decrypt")).toEqual(expect.arrayContaining([roleArn("SyncPage"), roleArn("TestConnectionApi"), roleArn("PreflightWorker"), roleArn("WebhookDelivery")]));
    expect(principalsOf("kms:Decrypt")).toHaveLength(4);
    for (const statement of statements) {
      expect(actionsOf(statement)).toHaveLength(1);
      expect(statement.Condition).toEqual(CONTEXT_CONDITION);
    }
  });

  test("the table key's policy names exactly the roles that use the table, through DynamoDB only", () => {
    const key = resources[logicalId(stack.table.key)]!;
    const use = (key.Properties.KeyPolicy.Statement as (Statement & { Principal: { AWS: unknown[] } })[]).filter(
      (statement) => !JSON.stringify(statement.Principal).includes(":root"),
    );
    expect(use).toHaveLength(1);
    expect(actionsOf(use[0]!).sort()).toEqual([...TABLE_KEY_ACTIONS].sort());
    const users = (Object.keys(TABLE_ACCESS) as TableUser[]).map((name) => ({ "Fn::GetAtt": [roleId(functions[name]!), "Arn"] }));
    expect(use[0]!.Principal.AWS).toEqual(expect.arrayContaining(users));
    expect(use[0]!.Principal.AWS).toHaveLength(users.length);
    expect(JSON.stringify(use[0]!.Condition)).toContain("kms:ViaService");
    expect(JSON.stringify(use[0]!.Condition)).toContain("dynamodb.");
  });

  test("every function has its own role, with no managed policy and logs only to its own log group", () => {
    const roles = new Set(Object.values(functions).map(roleId));
    expect(roles.size).toBe(Object.keys(functions).length);
    for (const [name, fn] of Object.entries(functions)) {
      const role = resources[roleId(fn)]!;
      expect(role.Properties.ManagedPolicyArns, name).toBeUndefined();
      expect(resources[functionId(fn)]!.Properties.Role).toEqual({ "Fn::GetAtt": [roleId(fn), "Arn"] });
      const logs = roleStatements(template, roleId(fn)).filter((statement) => actionsOf(statement).some((action) => action.startsWith("logs:")));
      expect(logs, name).toEqual([
        { Effect: "Allow", Action: ["logs:CreateLogStream", "logs:PutLogEvents"], Resource: { "Fn::GetAtt": [logicalId(fn.logGroup), "Arn"] } },
      ]);
    }
  });

  test("only the Api function may invoke the preflight worker, only the worker its on-failure destination, only FinishRun the managers' refresh, each only the live alias", () => {
    const invokers = Object.entries(functions).filter(([, fn]) =>
      roleStatements(template, roleId(fn)).some((statement) => actionsOf(statement).includes("lambda:InvokeFunction")),
    );
    expect(invokers.map(([name]) => name).sort()).toEqual(["Api", "FinishRun", "PreflightWorker"]);
    const invokes = (name: string) => roleStatements(template, roleId(functions[name]!)).filter((statement) => actionsOf(statement).includes("lambda:InvokeFunction"));
    expect(invokes("Api")).toHaveLength(1);
    expect(JSON.stringify(invokes("Api")[0]!.Resource)).toContain(logicalId(functions.PreflightWorker!.alias));
    expect(invokes("PreflightWorker")).toHaveLength(1);
    expect(JSON.stringify(invokes("PreflightWorker")[0]!.Resource)).toContain(logicalId(functions.PreflightFailed!.alias));
    expect(JSON.stringify(invokes("PreflightWorker")[0]!.Resource)).not.toContain(logicalId(functions.PreflightFailed!.function));
    expect(invokes("FinishRun")).toHaveLength(1);
    expect(JSON.stringify(invokes("FinishRun")[0]!.Resource)).toContain(logicalId(functions.ManagerRefresh!.alias));
  });

  test("least privilege: each function gets exactly the table actions of TABLE_ACCESS, on the table's ARN only", () => {
    const tableArn = { "Fn::GetAtt": [logicalId(stack.table.table), "Arn"] };
    for (const name of Object.keys(TABLE_ACCESS) as TableUser[]) {
      const dynamo = roleStatements(template, roleId(functions[name]!)).filter(
        (statement) => actionsOf(statement).some((action) => action.startsWith("dynamodb:")) && !isNewestIndexQuery(statement),
      );
      expect(dynamo, name).toHaveLength(1);
      expect(actionsOf(dynamo[0]!).sort(), name).toEqual([...new Set(TABLE_ACCESS[name])].sort());
      expect(dynamo[0]!.Resource).toEqual(tableArn);
    }
  });

  test("least privilege: only the Api may Query the records-newest index (the records explorer), and nothing else on it", () => {
    const holders = Object.entries(functions)
      .filter(([, fn]) => roleStatements(template, roleId(fn!)).some(isNewestIndexQuery))
      .map(([name]) => name);
    expect(holders).toEqual(["Api", "ManagerRefresh"]);
    expect(roleStatements(template, roleId(functions.ManagerRefresh!)).filter(isNewestIndexQuery).flatMap(actionsOf)).toEqual(["dynamodb:Query"]);
    const [statement] = roleStatements(template, roleId(functions.Api!)).filter(isNewestIndexQuery);
    expect(actionsOf(statement!)).toEqual(["dynamodb:Query"]);
    expect(statement!.Resource).toEqual({
      "Fn::Join": ["", [{ "Fn::GetAtt": [logicalId(stack.table.table), "Arn"] }, `/index/${RECORD_TABLE.newestIndex.name}`]],
    });
  });

  test("least privilege: DeleteItem only where the code deletes (FinishRun, Dispatcher, Api, the purge, the managers' refresh, the webhooks' claims), BatchWriteItem only for the purge's deletes, BatchGetItem only for the tick's count of live runs, an audit page's read of the stored versions, the API's newest-first listing and the managers' refresh's recent events (the index projects keys only), ConditionCheckItem only for the page task's fence", () => {
    const holders = (action: string) => rolesWithAction(action);
    const ids = (...names: string[]) => names.map((name) => roleId(functions[name]!)).sort();
    expect(holders("dynamodb:DeleteItem")).toEqual(ids("FinishRun", "Dispatcher", "Api", "PurgeDeleted", "ManagerRefresh", "WebhookDelivery"));
    expect(holders("dynamodb:BatchWriteItem")).toEqual(ids("PurgeDeleted"));
    expect(holders("dynamodb:BatchGetItem")).toEqual(ids("SyncPage", "Dispatcher", "Api", "ManagerRefresh"));
    expect(holders("dynamodb:ConditionCheckItem")).toEqual(ids("SyncPage"));
    // FinishRun reads the connection's freshness (its watermark items) at the run's end.
    expect(holders("dynamodb:Query")).toEqual(ids("SyncPage", "FinishRun", "Dispatcher", "Api", "PurgeDeleted", "ManagerRefresh", "WebhookDelivery"));
  });

  test("the public OpenAPI route's function has no table, key or state machine access: its role writes its logs and traces and nothing else", () => {
    const statements = roleStatements(template, roleId(functions.OpenApi!));
    expect(statements.flatMap(actionsOf).sort()).toEqual(["logs:CreateLogStream", "logs:PutLogEvents", "xray:PutTelemetryRecords", "xray:PutTraceSegments"]);
    const env = resources[functionId(functions.OpenApi!)]!.Properties.Environment.Variables as Record<string, unknown>;
    expect(Object.keys(env).sort()).toEqual(["NODE_OPTIONS", "POWERTOOLS_METRICS_NAMESPACE", "POWERTOOLS_SERVICE_NAME"]);
  });

  test("TABLE_ACCESS covers every DynamoDB command that lambdas/ sends in AWS", () => {
    // Each command's IAM action(s); the Transact* calls are authorized per item action.
    const ACTIONS: Record<string, string[]> = {
      GetItem: ["dynamodb:GetItem"],
      Query: ["dynamodb:Query"],
      PutItem: ["dynamodb:PutItem"],
      UpdateItem: ["dynamodb:UpdateItem"],
      DeleteItem: ["dynamodb:DeleteItem"],
      BatchWriteItem: ["dynamodb:BatchWriteItem"],
      BatchGetItem: ["dynamodb:BatchGetItem"],
      TransactGetItems: ["dynamodb:GetItem"],
      TransactWriteItems: ["dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:DeleteItem", "dynamodb:ConditionCheckItem"],
    };
    const root = fileURLToPath(new URL("../../lambdas/", import.meta.url));
    // lambdas/runtimes/local/ runs only on DynamoDB Local; table-definition.ts's ensureTable (Create/DescribeTable) is called only from there.
    const files = (readdirSync(root, { recursive: true }) as string[])
      .filter((file) => file.endsWith(".ts") && !file.startsWith("runtimes/local/") && file !== "adapters/dynamodb/table/table-definition.ts")
      .map((file) => readFileSync(join(root, file), "utf8"))
      .filter((source) => source.includes("@aws-sdk/client-dynamodb"));
    const used = new Set(files.flatMap((source) => [...source.matchAll(/\b(?:new\s+)?([A-Z][A-Za-z]+)Command\b|\bpaginate([A-Z][A-Za-z]+)\b/g)].map((m) => (m[1] ?? m[2]) as string)));
    expect(used.size).toBeGreaterThan(0);
    for (const command of used) {
      expect(ACTIONS[command], `DynamoDB command ${command} has no IAM mapping here: add it, and its action to TABLE_ACCESS`).toBeDefined();
      for (const action of ACTIONS[command]!) expect(ALL_TABLE_ACTIONS as readonly string[]).toContain(action);
    }
  });

  test("the page loop's role invokes exactly the five Task functions' live aliases; the run's role invokes none and starts only itself and the page loop", () => {
    const stateMachine = stack.syncStateMachine.stateMachine;
    const statements = roleStatements(template, logicalId(stateMachine.role));
    expect(statements.filter((statement) => actionsOf(statement).includes("lambda:InvokeFunction"))).toEqual([]);
    const pageStatements = roleStatements(template, logicalId(stack.syncStateMachine.pagesStateMachine.role));
    expect(pageStatements.filter((statement) => actionsOf(statement).some((action) => action.startsWith("states:")))).toEqual([]);
    const invoke = pageStatements.filter((statement) => actionsOf(statement).includes("lambda:InvokeFunction"));
    expect(invoke).toHaveLength(1);
    expect(actionsOf(invoke[0]!)).toEqual(["lambda:InvokeFunction"]);
    const taskFunctions = (Object.keys(SYNC_TASKS) as (keyof typeof SYNC_TASKS)[]).map((name) => ({ Ref: logicalId(stack.syncFunctions.tasks[name].alias) }));
    expect(resourcesOf(invoke[0]!)).toHaveLength(5);
    expect(resourcesOf(invoke[0]!)).toEqual(expect.arrayContaining(taskFunctions));

    const start = statements.filter((statement) => actionsOf(statement).includes("states:StartExecution"));
    expect(start).toHaveLength(1);
    expect(actionsOf(start[0]!)).toEqual(["states:StartExecution"]);
    const name = resources[logicalId(stateMachine)]!.Properties.StateMachineName;
    expect(name).toBe("CrmIntegration-Sync");
    expect(resourcesOf(start[0]!)).toEqual([
      {
        "Fn::Join": ["", ["arn:", { Ref: "AWS::Partition" }, ":states:", { Ref: "AWS::Region" }, ":", { Ref: "AWS::AccountId" }, `:stateMachine:${name}`]],
      },
      { Ref: logicalId(stack.syncStateMachine.pagesStateMachine) },
    ]);
    // RunPages (.sync:2) follows the page loop's executions, only those, and the managed rule that reports their end.
    const pagesName = resources[logicalId(stack.syncStateMachine.pagesStateMachine)]!.Properties.StateMachineName;
    expect(pagesName).toBe("CrmIntegration-SyncPages");
    const follow = statements.filter((statement) => actionsOf(statement).includes("states:DescribeExecution"));
    expect(follow).toHaveLength(1);
    expect(actionsOf(follow[0]!).sort()).toEqual(["states:DescribeExecution", "states:StopExecution"]);
    expect(resourcesOf(follow[0]!)).toEqual(
      ["execution", "express"].map((kind) => ({
        "Fn::Join": ["", ["arn:", { Ref: "AWS::Partition" }, ":states:", { Ref: "AWS::Region" }, ":", { Ref: "AWS::AccountId" }, `:${kind}:${pagesName}:*`]],
      })),
    );
    const rule = statements.filter((statement) => actionsOf(statement).includes("events:PutRule"));
    expect(rule).toHaveLength(1);
    expect(actionsOf(rule[0]!).sort()).toEqual(["events:DescribeRule", "events:PutRule", "events:PutTargets"]);
    expect(JSON.stringify(rule[0]!.Resource)).toContain(":rule/StepFunctionsGetEventsForStepFunctionsExecutionRule");
  });

  test("only the schedule tick's state machine and the onboarding API start runs; the dispatcher function only tells a dead run's execution from a live one (DescribeExecution)", () => {
    const tick = logicalId(stack.syncSchedule.stateMachine.role);
    const starters = [tick, roleId(functions.Api!)].sort();
    // EventBridge's role for the rule starts the tick itself, nothing else.
    const ruleRole = (template.toJSON().Resources[logicalId(stack.syncSchedule.rule)].Properties.Targets[0].RoleArn as { "Fn::GetAtt": [string, string] })["Fn::GetAtt"][0];
    expect(roleStatements(template, ruleRole).map((statement) => [actionsOf(statement), statement.Resource])).toEqual([[["states:StartExecution"], { Ref: logicalId(stack.syncSchedule.stateMachine) }]]);
    const others = [logicalId(stack.syncStateMachine.stateMachine.role), ruleRole];
    expect(rolesWithAction("states:StartExecution").filter((role) => !others.includes(role))).toEqual(starters);
    // The run's own Standard state machine starts and describes its Express page loop, and starts its continuation.
    const runRole = logicalId(stack.syncStateMachine.stateMachine.role);
    expect(rolesWithAction("states:DescribeExecution").filter((role) => role !== runRole)).toEqual([...starters, roleId(functions.Dispatcher!)].sort());
    const executions = {
      "Fn::Join": ["", ["arn:", { Ref: "AWS::Partition" }, ":states:", { Ref: "AWS::Region" }, ":", { Ref: "AWS::AccountId" }, ":execution:CrmIntegration-Sync:*"]],
    };
    // The API cancels a run (the owner's cancel route); the tick stops the run it follows when its item is stopped.
    expect(rolesWithAction("states:StopExecution").filter((role) => role !== runRole)).toEqual(starters);
    const statesOf = (role: string) =>
      roleStatements(template, role)
        .filter((statement) => actionsOf(statement).some((action) => action.startsWith("states:")))
        .map((statement) => ({ ...statement, Action: actionsOf(statement).sort() }));
    expect(statesOf(roleId(functions.Api!))).toEqual([
      { Effect: "Allow", Action: ["states:StartExecution"], Resource: { Ref: logicalId(stack.syncStateMachine.stateMachine) } },
      { Effect: "Allow", Action: ["states:DescribeExecution", "states:StopExecution"], Resource: executions },
    ]);
    expect(statesOf(roleId(functions.Dispatcher!))).toEqual([{ Effect: "Allow", Action: ["states:DescribeExecution"], Resource: executions }]);
  });

  test("no `*` resource where the action has a resource type: only Step Functions' log-delivery and X-Ray actions, and the functions' X-Ray trace writes (active tracing)", () => {
    const NO_RESOURCE_LEVEL = new Set([
      "logs:CreateLogDelivery",
      "logs:GetLogDelivery",
      "logs:UpdateLogDelivery",
      "logs:DeleteLogDelivery",
      "logs:ListLogDeliveries",
      "logs:PutResourcePolicy",
      "logs:DescribeResourcePolicies",
      "logs:DescribeLogGroups",
      "xray:PutTraceSegments",
      "xray:PutTelemetryRecords",
      "xray:GetSamplingRules",
      "xray:GetSamplingTargets",
    ]);
    const wildcard = allStatements.filter(({ statement }) => resourcesOf(statement).includes("*"));
    expect(wildcard.length).toBeGreaterThan(0);
    const functionRoles = new Set(Object.values(functions).map(roleId));
    for (const { role, statement } of wildcard) {
      if (functionRoles.has(role)) {
        expect(actionsOf(statement).sort()).toEqual(["xray:PutTelemetryRecords", "xray:PutTraceSegments"]);
        continue;
      }
      expect([
        logicalId(stack.syncStateMachine.stateMachine.role),
        logicalId(stack.syncStateMachine.pagesStateMachine.role),
        logicalId(stack.syncSchedule.stateMachine.role),
      ]).toContain(role);
      for (const action of actionsOf(statement)) expect(NO_RESOURCE_LEVEL.has(action), action).toBe(true);
    }
    for (const { role, statement } of allStatements) {
      expect(statement.Effect).toBe("Allow");
      // aws-cdk-lib's BucketDeployment grants its sync s3:GetObject* and the like on the console bucket and the asset
      // bucket only (test/cdk/console-hosting.test.ts checks its role).
      if (role === logicalId(stack.console.deployRole)) continue;
      for (const action of actionsOf(statement)) expect(action, "no wildcard action").not.toContain("*");
    }
  });
});
