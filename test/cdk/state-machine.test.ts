import { readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { SYNC_DEFINITION_PATH } from "../../statemachine/sync-definition";
import { SYNC_TASKS, type SyncTaskName } from "../../lib/sync-functions";
import { logicalId, synthesize } from "./stack-fixture";

const { stack, template } = synthesize();
const stateMachine = template.toJSON().Resources[logicalId(stack.syncStateMachine.stateMachine)];
const file = readFileSync(SYNC_DEFINITION_PATH, "utf8");
const PLACEHOLDER = /\$\{([A-Za-z0-9_]+)\}/g;

describe("CDK stack: the sync state machine", () => {
  test("is a Standard state machine with a fixed name, ERROR logs to its log group, and tracing", () => {
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

  test("its definition is statemachine/sync.asl.json, byte for byte (the file the local runtime runs)", () => {
    expect(stateMachine.Properties.DefinitionString).toBe(file);
    expect(stateMachine.Properties.DefinitionS3Location).toBeUndefined();
  });

  test("DefinitionSubstitutions fill exactly the file's five placeholders, each with its Task function's live alias ARN", () => {
    const placeholders = new Set([...file.matchAll(PLACEHOLDER)].map((match) => match[1]));
    const substitutions = stateMachine.Properties.DefinitionSubstitutions as Record<string, unknown>;
    expect(Object.keys(substitutions).sort()).toEqual([...placeholders].sort());
    expect(Object.keys(substitutions).sort()).toEqual(
      ["BeginRunFunctionArn", "SyncPageFunctionArn", "EntityFailedFunctionArn", "StopRunFunctionArn", "FinishRunFunctionArn"].sort(),
    );
    for (const name of Object.keys(SYNC_TASKS) as SyncTaskName[]) {
      expect(substitutions[SYNC_TASKS[name].placeholder], name).toEqual({ Ref: logicalId(stack.syncFunctions.tasks[name].alias) });
    }
  });

  test("after substitution no ${Name} placeholder is left, and every Task names a substituted function or the startExecution integration", () => {
    const substitutions = stateMachine.Properties.DefinitionSubstitutions as Record<string, { Ref: string }>;
    // What CloudFormation does at deploy time, with the alias's logical id standing in for its ARN.
    const deployed = (stateMachine.Properties.DefinitionString as string).replace(PLACEHOLDER, (whole, key: string) =>
      key in substitutions ? `arn:function:${substitutions[key]!.Ref}` : whole,
    );
    // CloudFormation replaces each `${key}` of DefinitionSubstitutions as plain text and leaves anything else as is
    // (the top-level Comment's literal "${...}" stays text): no `${Name}` placeholder may be left for it to miss.
    expect(deployed).not.toMatch(/\$\{[A-Za-z0-9_]+\}/);
    const definition = JSON.parse(deployed) as { States: Record<string, { Type: string; Resource?: string; Parameters?: Record<string, unknown> }> };
    const taskResources = Object.entries(definition.States)
      .filter(([, state]) => state.Type === "Task")
      .map(([name, state]) => [name, state.Resource] as const);
    const expected: Record<string, string> = {
      BeginRun: `arn:function:${logicalId(stack.syncFunctions.tasks.BeginRun.alias)}`,
      FetchPage: `arn:function:${logicalId(stack.syncFunctions.tasks.FetchPage.alias)}`,
      EntityFailed: `arn:function:${logicalId(stack.syncFunctions.tasks.EntityFailed.alias)}`,
      StopRun: `arn:function:${logicalId(stack.syncFunctions.tasks.StopRun.alias)}`,
      FinishRun: `arn:function:${logicalId(stack.syncFunctions.tasks.FinishRun.alias)}`,
      ContinueAsNew: "arn:aws:states:::states:startExecution",
    };
    expect(Object.fromEntries(taskResources)).toEqual(expected);
    // ContinueAsNew starts this same state machine: the role's StartExecution on its own (constructed) ARN covers it.
    expect(definition.States.ContinueAsNew?.Parameters?.["StateMachineArn.$"]).toBe("$$.StateMachine.Id");
  });
});
