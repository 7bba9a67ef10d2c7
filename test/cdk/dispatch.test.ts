import { describe, expect, test } from "vitest";
import { loadDispatchDefinition } from "../../statemachine/dispatch-definition";
import { CONTEXT_DEFAULTS, DeployConfigError } from "../../lib/deploy-config";
import { actionsOf, logicalId, resourcesOf, roleStatements, synthesize, TEST_CONTEXT } from "./stack-fixture";

const { stack, template } = synthesize();
const resources = template.toJSON().Resources as Record<string, { Type: string; Properties: Record<string, any> }>;
const dispatch = resources[logicalId(stack.syncSchedule.stateMachine)]!;
const definition = (props: Record<string, any>) => JSON.parse(props.DefinitionString as string) as { States: Record<string, any> };
const aliasOf = (fn: { alias: unknown }) => ({ Ref: logicalId(fn.alias as never) });
const arn = (suffix: string) => ({
  "Fn::Join": ["", ["arn:", { Ref: "AWS::Partition" }, ":states:", { Ref: "AWS::Region" }, ":", { Ref: "AWS::AccountId" }, suffix]],
});

describe("CDK stack: the schedule tick (dispatch state machine)", () => {
  test("the cap on concurrent runs is context maxConcurrentRuns: the Distributed Map's MaxConcurrency (default in cdk.json, overridable)", () => {
    const map = definition(dispatch.Properties).States["RunConnections"];
    expect(map).toMatchObject({ Type: "Map", MaxConcurrency: CONTEXT_DEFAULTS.maxConcurrentRuns, ItemProcessor: { ProcessorConfig: { Mode: "DISTRIBUTED", ExecutionType: "STANDARD" } } });
    const { stack: other, template: changed } = synthesize({ ...TEST_CONTEXT, maxConcurrentRuns: "25" });
    const changedMachine = changed.toJSON().Resources[logicalId(other.syncSchedule.stateMachine)];
    expect(definition(changedMachine.Properties).States["RunConnections"].MaxConcurrency).toBe(25);
  });

  test("its definition is statemachine/dispatch.asl.json with the cap written in (the file the local runtime runs)", () => {
    expect(definition(dispatch.Properties)).toEqual(loadDispatchDefinition(CONTEXT_DEFAULTS.maxConcurrentRuns));
    expect(dispatch.Properties).toMatchObject({ StateMachineType: "STANDARD", LoggingConfiguration: { Level: "ERROR" }, TracingConfiguration: { Enabled: true } });
  });

  test("DefinitionSubstitutions fill every placeholder: the dispatcher function's live alias (both Task states) and the sync state machine", () => {
    const placeholders = new Set([...(dispatch.Properties.DefinitionString as string).matchAll(/\$\{([A-Za-z0-9_]+)\}/g)].map((match) => match[1]));
    expect(Object.keys(dispatch.Properties.DefinitionSubstitutions).sort()).toEqual([...placeholders].sort());
    expect(dispatch.Properties.DefinitionSubstitutions).toEqual({
      DispatcherFunctionArn: aliasOf(stack.syncSchedule.dispatcher),
      SyncStateMachineArn: { Ref: logicalId(stack.syncStateMachine.stateMachine) },
    });
  });

  test("a run's slot is held until the run ends: RunSync waits for the execution (.sync:2) with a deadline of a day, not the 60 s default", () => {
    const item = definition(dispatch.Properties).States["RunConnections"].ItemProcessor.States;
    expect(item.RunSync).toMatchObject({ Resource: "arn:aws:states:::states:startExecution.sync:2", TimeoutSeconds: 86400 });
    // Every item ends in ItemDone, failures caught: one connection's failure never fails the tick.
    for (const name of ["ClaimRun", "RunSync", "DescribeContinuation"]) expect(item[name].Catch[0]).toMatchObject({ ErrorEquals: ["States.ALL"], Next: "ItemDone" });
  });

  test("least privilege: the tick's role invokes its one function, starts and follows sync executions and its own child executions, and nothing else", () => {
    const statements = roleStatements(template, logicalId(stack.syncSchedule.stateMachine.role));
    // The resources each action is granted on, whatever way the policy groups its statements.
    const byAction = (action: string) =>
      statements
        .filter((statement) => actionsOf(statement).includes(action))
        .flatMap(resourcesOf)
        .map((resource) => JSON.stringify(resource))
        .sort();
    const json = (...values: unknown[]) => values.map((value) => JSON.stringify(value)).sort();
    expect(byAction("lambda:InvokeFunction")).toEqual(json(aliasOf(stack.syncSchedule.dispatcher)));
    expect(byAction("states:StartExecution")).toEqual(json({ Ref: logicalId(stack.syncStateMachine.stateMachine) }, arn(":stateMachine:CrmIntegration-Dispatch")));
    expect(byAction("states:DescribeExecution")).toEqual(json(arn(":execution:CrmIntegration-Sync:*"), arn(":execution:CrmIntegration-Dispatch/*")));
    expect(byAction("states:StopExecution")).toEqual(byAction("states:DescribeExecution"));
    const own = statements.filter((statement) => !actionsOf(statement).some((action) => action.startsWith("logs:") || action.startsWith("xray:")));
    expect(new Set(own.flatMap(actionsOf))).toEqual(
      new Set(["lambda:InvokeFunction", "states:StartExecution", "states:DescribeExecution", "states:StopExecution", "events:PutTargets", "events:PutRule", "events:DescribeRule"]),
    );
    for (const statement of statements.filter((s) => actionsOf(s).some((action) => action.startsWith("events:")))) {
      expect(JSON.stringify(statement.Resource)).toContain("rule/StepFunctionsGetEventsForStepFunctionsExecutionRule");
    }
  });

  test("context maxConcurrentRuns above pageTaskConcurrency, or below 1, is refused with a message naming it", () => {
    expect(() => synthesize({ ...TEST_CONTEXT, maxConcurrentRuns: "300" })).toThrow(DeployConfigError);
    expect(() => synthesize({ ...TEST_CONTEXT, maxConcurrentRuns: "300" })).toThrow(/maxConcurrentRuns \(300\) must be at most pageTaskConcurrency \(200\)/);
    expect(() => synthesize({ ...TEST_CONTEXT, maxConcurrentRuns: "0" })).toThrow(/maxConcurrentRuns must be from 1/);
  });
});
