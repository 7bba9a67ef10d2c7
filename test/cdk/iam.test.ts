import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";
import { ENCRYPTION_CONTEXT_KEYS } from "../../lambdas/aws/kms-token-cipher";
import { RECORD_TABLE_ACTIONS } from "../../lib/record-table";
import { SYNC_TASKS } from "../../lib/sync-functions";
import { actionsOf, functionId, logicalId, resourcesOf, roleId, roleStatements, serviceFunctions, synthesize, type Statement } from "./stack-fixture";

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
  test("kms:Decrypt only for the functions that call the source: FetchPage and the test-route function", () => {
    expect(rolesWithAction("kms:Decrypt")).toEqual([roleId(functions.FetchPage!), roleId(functions.TestConnectionApi!)].sort());
  });

  test("kms:Encrypt only for the onboarding API function (it stores tokens; it never decrypts)", () => {
    expect(rolesWithAction("kms:Encrypt")).toEqual([roleId(functions.Api!)]);
  });

  test("both KMS grants: that one action, on the key's ARN, with the encryption-context condition", () => {
    const kms = allStatements.filter(({ statement }) => actionsOf(statement).some((action) => action.startsWith("kms:")));
    expect(kms).toHaveLength(3);
    for (const { statement } of kms) {
      expect(actionsOf(statement)).toHaveLength(1);
      expect(statement.Effect).toBe("Allow");
      expect(statement.Resource).toEqual(keyArn);
      expect(statement.Condition).toEqual(CONTEXT_CONDITION);
    }
  });

  test("the key policy grants nothing beyond the account (IAM decides, as above)", () => {
    const key = Object.values(resources).find((resource) => resource.Type === "AWS::KMS::Key")!;
    const statements = key.Properties.KeyPolicy.Statement as Statement[];
    expect(statements).toHaveLength(1);
    expect(JSON.stringify(statements[0])).toContain(":root");
  });

  test("every function has its own role, with no managed policy and logs only to its own log group", () => {
    const roles = new Set(Object.values(functions).map(roleId));
    expect(roles.size).toBe(8);
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

  test("every function reads and writes items of the table, by its ARN only, with RECORD_TABLE_ACTIONS", () => {
    const tableArn = { "Fn::GetAtt": [logicalId(stack.table.table), "Arn"] };
    for (const [name, fn] of Object.entries(functions)) {
      const dynamo = roleStatements(template, roleId(fn)).filter((statement) => actionsOf(statement).some((action) => action.startsWith("dynamodb:")));
      expect(dynamo, name).toHaveLength(1);
      expect(actionsOf(dynamo[0]!).sort()).toEqual([...RECORD_TABLE_ACTIONS].sort());
      expect(dynamo[0]!.Resource).toEqual(tableArn);
    }
  });

  test("RECORD_TABLE_ACTIONS covers every DynamoDB command that lambdas/ sends in AWS", () => {
    // Each command's IAM action(s); the Transact* calls are authorized per item action.
    const ACTIONS: Record<string, string[]> = {
      GetItem: ["dynamodb:GetItem"],
      Query: ["dynamodb:Query"],
      PutItem: ["dynamodb:PutItem"],
      UpdateItem: ["dynamodb:UpdateItem"],
      DeleteItem: ["dynamodb:DeleteItem"],
      BatchWriteItem: ["dynamodb:BatchWriteItem"],
      TransactGetItems: ["dynamodb:GetItem"],
      TransactWriteItems: ["dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:DeleteItem", "dynamodb:ConditionCheckItem"],
    };
    const root = fileURLToPath(new URL("../../lambdas/", import.meta.url));
    // lambdas/local/ runs only on DynamoDB Local; table-definition.ts's ensureTable (Create/DescribeTable) is called only from there.
    const files = (readdirSync(root, { recursive: true }) as string[])
      .filter((file) => file.endsWith(".ts") && !file.startsWith("local/") && file !== "store/table-definition.ts")
      .map((file) => readFileSync(join(root, file), "utf8"))
      .filter((source) => source.includes("@aws-sdk/client-dynamodb"));
    const used = new Set(files.flatMap((source) => [...source.matchAll(/\b(?:new\s+)?([A-Z][A-Za-z]+)Command\b|\bpaginate([A-Z][A-Za-z]+)\b/g)].map((m) => (m[1] ?? m[2]) as string)));
    expect(used.size).toBeGreaterThan(0);
    for (const command of used) {
      expect(ACTIONS[command], `DynamoDB command ${command} has no IAM mapping here: add it, and its action to RECORD_TABLE_ACTIONS`).toBeDefined();
      for (const action of ACTIONS[command]!) expect(RECORD_TABLE_ACTIONS as readonly string[]).toContain(action);
    }
  });

  test("the state machine's role invokes exactly the five Task functions and starts only itself", () => {
    const stateMachine = stack.syncStateMachine.stateMachine;
    const statements = roleStatements(template, logicalId(stateMachine.role));
    const invoke = statements.filter((statement) => actionsOf(statement).includes("lambda:InvokeFunction"));
    expect(invoke).toHaveLength(1);
    expect(actionsOf(invoke[0]!)).toEqual(["lambda:InvokeFunction"]);
    const taskFunctions = (Object.keys(SYNC_TASKS) as (keyof typeof SYNC_TASKS)[]).map((name) => ({ "Fn::GetAtt": [functionId(stack.syncFunctions.tasks[name]), "Arn"] }));
    expect(resourcesOf(invoke[0]!)).toHaveLength(5);
    expect(resourcesOf(invoke[0]!)).toEqual(expect.arrayContaining(taskFunctions));

    const start = statements.filter((statement) => actionsOf(statement).includes("states:StartExecution"));
    expect(start).toHaveLength(1);
    const name = resources[logicalId(stateMachine)]!.Properties.StateMachineName;
    expect(name).toBe("CrmIntegration-Sync");
    expect(start[0]!.Resource).toEqual({
      "Fn::Join": ["", ["arn:", { Ref: "AWS::Partition" }, ":states:", { Ref: "AWS::Region" }, ":", { Ref: "AWS::AccountId" }, `:stateMachine:${name}`]],
    });
  });

  test("only the dispatcher and the onboarding API start runs: StartExecution on the state machine, DescribeExecution on its executions", () => {
    const starters = [roleId(functions.Dispatcher!), roleId(functions.Api!)].sort();
    expect(rolesWithAction("states:StartExecution").filter((role) => role !== logicalId(stack.syncStateMachine.stateMachine.role))).toEqual(starters);
    expect(rolesWithAction("states:DescribeExecution")).toEqual(starters);
    for (const role of starters) {
      const states = roleStatements(template, role).filter((statement) => actionsOf(statement).some((action) => action.startsWith("states:")));
      expect(states).toEqual([
        { Effect: "Allow", Action: "states:StartExecution", Resource: { Ref: logicalId(stack.syncStateMachine.stateMachine) } },
        {
          Effect: "Allow",
          Action: "states:DescribeExecution",
          Resource: {
            "Fn::Join": ["", ["arn:", { Ref: "AWS::Partition" }, ":states:", { Ref: "AWS::Region" }, ":", { Ref: "AWS::AccountId" }, ":execution:CrmIntegration-Sync:*"]],
          },
        },
      ]);
    }
  });

  test("no `*` resource where the action has a resource type: only Step Functions' log-delivery and X-Ray actions", () => {
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
    for (const { role, statement } of wildcard) {
      expect(role).toBe(logicalId(stack.syncStateMachine.stateMachine.role));
      for (const action of actionsOf(statement)) expect(NO_RESOURCE_LEVEL.has(action), action).toBe(true);
    }
    for (const { statement } of allStatements) {
      expect(statement.Effect).toBe("Allow");
      for (const action of actionsOf(statement)) expect(action, "no wildcard action").not.toContain("*");
    }
  });
});
