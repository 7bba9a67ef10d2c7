import { readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { SYNC_DEFINITION_PATH, SYNC_PAGES_DEFINITION_PATH } from "../../statemachine/sync-definition";
import { SYNC_TASKS, type SyncTaskName } from "../../lib/sync-functions";
import { logicalId, synthesize } from "./stack-fixture";

const { stack, template } = synthesize();
const resources = template.toJSON().Resources;
const stateMachine = resources[logicalId(stack.syncStateMachine.stateMachine)];
const pagesStateMachine = resources[logicalId(stack.syncStateMachine.pagesStateMachine)];
const file = readFileSync(SYNC_DEFINITION_PATH, "utf8");
const pagesFile = readFileSync(SYNC_PAGES_DEFINITION_PATH, "utf8");
const PLACEHOLDER = /\$\{([A-Za-z0-9_]+)\}/g;

type Deployed = { States: Record<string, { Type: string; Resource?: string; Parameters?: Record<string, unknown> }> };

/** What CloudFormation does at deploy time, with a Ref's logical id standing in for the ARN it resolves to. */
function deploy(resource: { Properties: { DefinitionString: string; DefinitionSubstitutions: Record<string, { Ref: string }> } }): string {
  const substitutions = resource.Properties.DefinitionSubstitutions;
  return resource.Properties.DefinitionString.replace(PLACEHOLDER, (whole, key: string) =>
    key in substitutions ? `arn:ref:${substitutions[key]!.Ref}` : whole,
  );
}

describe("CDK stack: the sync state machines", () => {
  test("the run is a Standard state machine with a fixed name, ERROR logs to its log group, and tracing", () => {
    expect(stateMachine.Type).toBe("AWS::StepFunctions::StateMachine");
    expect(stateMachine.Properties).toMatchObject({
      StateMachineName: "CrmIntegration-Sync",
      StateMachineType: "STANDARD",
      LoggingConfiguration: {
        Level: "ERROR",
        IncludeExecutionData: true,
        Destinations: [{ CloudWatchLogsLogGroup: { LogGroupArn: { "Fn::GetAtt": [logicalId(stack.syncStateMachine.logGroup), "Arn"] } } }],
      },
      TracingConfiguration: { Enabled: true },
      RoleArn: { "Fn::GetAtt": [logicalId(stack.syncStateMachine.stateMachine.role), "Arn"] },
    });
  });

  test("the page loop is an Express state machine with its own role, ERROR logs with execution data to its own log group (Express keeps no history), and tracing", () => {
    expect(pagesStateMachine.Type).toBe("AWS::StepFunctions::StateMachine");
    expect(pagesStateMachine.Properties).toMatchObject({
      StateMachineName: "CrmIntegration-SyncPages",
      StateMachineType: "EXPRESS",
      LoggingConfiguration: {
        Level: "ERROR",
        IncludeExecutionData: true,
        Destinations: [{ CloudWatchLogsLogGroup: { LogGroupArn: { "Fn::GetAtt": [logicalId(stack.syncStateMachine.pagesLogGroup), "Arn"] } } }],
      },
      TracingConfiguration: { Enabled: true },
      RoleArn: { "Fn::GetAtt": [logicalId(stack.syncStateMachine.pagesStateMachine.role), "Arn"] },
    });
    expect(logicalId(stack.syncStateMachine.pagesStateMachine.role)).not.toBe(logicalId(stack.syncStateMachine.stateMachine.role));
    // Express's hard limit; the definition says so itself, since TimeoutSeconds is a definition field.
    expect((JSON.parse(pagesFile) as { TimeoutSeconds: number }).TimeoutSeconds).toBe(300);
  });

  // https://docs.aws.amazon.com/step-functions/latest/dg/bp-cwl.html: CloudWatch Logs' resource policy is limited to
  // 5,120 characters, and log groups under /aws/vendedlogs/ need no entry in it; without the prefix, a busy account's
  // policy fills up and creating a state machine with logging fails the deploy.
  test("log group names: every state machine of the stack logs to a log group under /aws/vendedlogs/states/", () => {
    const all = template.toJSON().Resources as Record<string, { Type: string; Properties: Record<string, any> }>;
    const machines = Object.values(all).filter((resource) => resource.Type === "AWS::StepFunctions::StateMachine");
    expect(machines).toHaveLength(3);
    for (const machine of machines) {
      const [logGroupId] = machine.Properties.LoggingConfiguration.Destinations[0].CloudWatchLogsLogGroup.LogGroupArn["Fn::GetAtt"] as [string];
      expect(all[logGroupId]!.Properties.LogGroupName, machine.Properties.StateMachineName).toBe(`/aws/vendedlogs/states/${machine.Properties.StateMachineName}`);
    }
  });

  test("their definitions are statemachine/sync.asl.json and sync-pages.asl.json, byte for byte (the files the local runtime runs)", () => {
    expect(stateMachine.Properties.DefinitionString).toBe(file);
    expect(stateMachine.Properties.DefinitionS3Location).toBeUndefined();
    expect(pagesStateMachine.Properties.DefinitionString).toBe(pagesFile);
    expect(pagesStateMachine.Properties.DefinitionS3Location).toBeUndefined();
  });

  test("DefinitionSubstitutions fill exactly each file's placeholders: the page loop's five with each Task function's live alias ARN, the run's one with the page loop's ARN", () => {
    const pagePlaceholders = new Set([...pagesFile.matchAll(PLACEHOLDER)].map((match) => match[1]));
    const substitutions = pagesStateMachine.Properties.DefinitionSubstitutions as Record<string, unknown>;
    expect(Object.keys(substitutions).sort()).toEqual([...pagePlaceholders].sort());
    expect(Object.keys(substitutions).sort()).toEqual(
      ["BeginRunFunctionArn", "SyncPageFunctionArn", "EntityFailedFunctionArn", "StopRunFunctionArn", "FinishRunFunctionArn"].sort(),
    );
    for (const name of Object.keys(SYNC_TASKS) as SyncTaskName[]) {
      expect(substitutions[SYNC_TASKS[name].placeholder], name).toEqual({ Ref: logicalId(stack.syncFunctions.tasks[name].alias) });
    }
    const runPlaceholders = new Set([...file.matchAll(PLACEHOLDER)].map((match) => match[1]));
    expect([...runPlaceholders]).toEqual(["SyncPagesStateMachineArn"]);
    expect(stateMachine.Properties.DefinitionSubstitutions).toEqual({
      SyncPagesStateMachineArn: { Ref: logicalId(stack.syncStateMachine.pagesStateMachine) },
    });
  });

  test("after substitution no ${Name} placeholder is left; the page loop's Tasks name the substituted functions, the run's the two Step Functions integrations", () => {
    // CloudFormation replaces each `${key}` of DefinitionSubstitutions as plain text and leaves anything else as is:
    // no `${Name}` placeholder may be left for it to miss.
    const pages = deploy(pagesStateMachine);
    const run = deploy(stateMachine);
    expect(pages).not.toMatch(/\$\{[A-Za-z0-9_]+\}/);
    expect(run).not.toMatch(/\$\{[A-Za-z0-9_]+\}/);
    const tasksOf = (definition: Deployed) =>
      Object.fromEntries(Object.entries(definition.States).filter(([, state]) => state.Type === "Task").map(([name, state]) => [name, state.Resource]));
    const alias = (name: SyncTaskName) => `arn:ref:${logicalId(stack.syncFunctions.tasks[name].alias)}`;
    expect(tasksOf(JSON.parse(pages) as Deployed)).toEqual({
      BeginRun: alias("BeginRun"),
      SyncPage: alias("SyncPage"),
      EntityFailed: alias("EntityFailed"),
      StopRun: alias("StopRun"),
      FinishRun: alias("FinishRun"),
    });
    const runDefinition = JSON.parse(run) as Deployed;
    expect(tasksOf(runDefinition)).toEqual({
      RunPages: "arn:aws:states:::states:startExecution.sync:2",
      ContinueAsNew: "arn:aws:states:::states:startExecution",
    });
    expect(runDefinition.States.RunPages?.Parameters?.["StateMachineArn"]).toBe(`arn:ref:${logicalId(stack.syncStateMachine.pagesStateMachine)}`);
    // ContinueAsNew starts this same state machine: the role's StartExecution on its own (constructed) ARN covers it.
    expect(runDefinition.States.ContinueAsNew?.Parameters?.["StateMachineArn.$"]).toBe("$$.StateMachine.Id");
  });
});
