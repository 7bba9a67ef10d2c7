import { describe, expect, test } from "vitest";
import { dispatchBatching, loadDispatchDefinition } from "../../statemachine/dispatch-definition";
import { childrenUnderCap } from "../../lambdas/domain/sync/dispatch-tick";
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
  test("the cap on concurrent runs is context maxConcurrentRuns: the Distributed Map's MaxConcurrency (read through MaxConcurrencyPath from ListConnections, at most max_children) times the batch each child holds is at most it (default in cdk.json, overridable)", () => {
    const capOf = (states: Record<string, any>) => states["ListConnections"].Parameters.max_children * states["ListConnections"].Parameters.batch_size;
    const states = definition(dispatch.Properties).States;
    expect(states["RunConnections"]).toMatchObject({ Type: "Map", MaxConcurrencyPath: "$.children", ItemsPath: "$.batches", ItemProcessor: { ProcessorConfig: { Mode: "DISTRIBUTED", ExecutionType: "STANDARD" } } });
    // ASL takes one of MaxConcurrency and MaxConcurrencyPath, not both.
    expect(states["RunConnections"].MaxConcurrency).toBeUndefined();
    expect(states["ListConnections"].Parameters).toMatchObject({ task: "ListConnections", batch_size: 10, max_runs: CONTEXT_DEFAULTS.maxConcurrentRuns, max_children: 20 });
    expect(capOf(states)).toBe(CONTEXT_DEFAULTS.maxConcurrentRuns);
    const { stack: other, template: changed } = synthesize({ ...TEST_CONTEXT, maxConcurrentRuns: "25" });
    const changedStates = definition(changed.toJSON().Resources[logicalId(other.syncSchedule.stateMachine)].Properties).States;
    expect(changedStates["ListConnections"].Parameters).toMatchObject({ batch_size: 8, max_runs: 25, max_children: 3 });
    expect(capOf(changedStates)).toBeLessThanOrEqual(25);
  });

  test("the cap holds across overlapping ticks: ListConnections gives the Map the room the live runs leave, in whole batches, never more than max_children and never fewer than one child", () => {
    const cap = { maxRuns: 200, maxChildren: 20 };
    expect(childrenUnderCap(cap, 10, 0)).toBe(20);
    expect(childrenUnderCap(cap, 10, 55)).toBe(14);
    expect(childrenUnderCap(cap, 10, 195)).toBe(1);
    expect(childrenUnderCap(cap, 10, 400)).toBe(1);
    for (let maxRuns = 1; maxRuns <= 200; maxRuns += 1) {
      const { batchSize, children } = dispatchBatching(maxRuns);
      for (let live = 0; live <= maxRuns + batchSize; live += 1) {
        const given = childrenUnderCap({ maxRuns, maxChildren: children }, batchSize, live);
        expect(given).toBeGreaterThanOrEqual(1);
        expect(given).toBeLessThanOrEqual(children);
        // The one-child floor is the only excess: at most one batch past the cap.
        if (given > 1) expect(live + given * batchSize).toBeLessThanOrEqual(maxRuns);
        else expect(given * batchSize).toBeLessThanOrEqual(batchSize);
      }
    }
  });

  test("the cap holds for every cap: children x batch size never exceeds it, and a batch is never larger than 10", () => {
    for (let cap = 1; cap <= 200; cap += 1) {
      const { batchSize, children } = dispatchBatching(cap);
      expect(batchSize * children).toBeLessThanOrEqual(cap);
      expect(batchSize).toBeGreaterThanOrEqual(1);
      expect(batchSize).toBeLessThanOrEqual(10);
    }
  });

  test("its definition is statemachine/dispatch.asl.json with the cap written in (the file the local runtime runs)", () => {
    expect(definition(dispatch.Properties)).toEqual(loadDispatchDefinition(CONTEXT_DEFAULTS.maxConcurrentRuns));
    expect(dispatch.Properties).toMatchObject({ StateMachineType: "STANDARD", LoggingConfiguration: { Level: "ERROR" }, TracingConfiguration: { Enabled: true } });
  });

  test("DefinitionSubstitutions fill every placeholder: the dispatcher function's live alias (its Task states), the sync state machine and its Express page loop", () => {
    const placeholders = new Set([...(dispatch.Properties.DefinitionString as string).matchAll(/\$\{([A-Za-z0-9_]+)\}/g)].map((match) => match[1]));
    expect(Object.keys(dispatch.Properties.DefinitionSubstitutions).sort()).toEqual([...placeholders].sort());
    expect(dispatch.Properties.DefinitionSubstitutions).toEqual({
      DispatcherFunctionArn: aliasOf(stack.syncSchedule.dispatcher),
      SyncStateMachineArn: { Ref: logicalId(stack.syncStateMachine.stateMachine) },
      SyncPagesStateMachineArn: { Ref: logicalId(stack.syncStateMachine.pagesStateMachine) },
      DispatchResultsBucketName: { Ref: logicalId(stack.syncSchedule.results) },
    });
  });

  // "ResultWriter (Map)": exporting the children's results to S3 takes these four actions on the objects written.
  test("the Map's results go to a private bucket of their own (ResultWriter), and the tick's role may write there under the definition's prefix only", () => {
    const bucket = resources[logicalId(stack.syncSchedule.results)]!;
    expect(bucket.Properties).toMatchObject({
      PublicAccessBlockConfiguration: { BlockPublicAcls: true, BlockPublicPolicy: true, IgnorePublicAcls: true, RestrictPublicBuckets: true },
      BucketEncryption: { ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: "AES256" } }] },
      LifecycleConfiguration: { Rules: [{ ExpirationInDays: TEST_CONTEXT.logRetentionDays, Status: "Enabled" }] },
    });
    const writer = definition(dispatch.Properties).States["RunConnections"].ResultWriter;
    expect(writer).toEqual({ Resource: "arn:aws:states:::s3:putObject", Parameters: { Bucket: "${DispatchResultsBucketName}", Prefix: "dispatch-results" } });
    const statements = roleStatements(template, logicalId(stack.syncSchedule.stateMachine.role));
    const s3 = statements.filter((statement) => actionsOf(statement).some((action) => action.startsWith("s3:")));
    expect(s3).toHaveLength(1);
    expect(actionsOf(s3[0]!).sort()).toEqual(["s3:AbortMultipartUpload", "s3:GetObject", "s3:ListMultipartUploadParts", "s3:PutObject"]);
    expect(resourcesOf(s3[0]!)).toEqual([{ "Fn::Join": ["", [{ "Fn::GetAtt": [logicalId(stack.syncSchedule.results), "Arn"] }, "/dispatch-results/*"]] }]);
  });

  test("a run's slot is held until the run ends: the first segment and the hand-over both wait (.sync:2), the hand-over with a deadline of a day, not the 60 s default", () => {
    const child = definition(dispatch.Properties).States["RunConnections"].ItemProcessor.States;
    const first = child.FirstSegments.ItemProcessor.States;
    const handOver = child.HandOvers.ItemProcessor.States;
    // Longer than the Express page loop's own 300 s timeout: the segment has always ended when the Task gives up.
    expect(first.FirstSegment).toMatchObject({ Resource: "arn:aws:states:::states:startExecution.sync:2", TimeoutSeconds: 360 });
    expect(first.FirstSegment.Parameters.Input.execution_id).toBeNull();
    expect(handOver.RunSync).toMatchObject({ Resource: "arn:aws:states:::states:startExecution.sync:2", TimeoutSeconds: 86400 });
    // A deterministic name: a retried start cannot fork the run.
    expect(handOver.RunSync.Parameters["Name.$"]).toBe("States.Format('{}-c0', $.run.run_id)");
    // Failures caught: one connection's failure never fails the tick, and a run that cannot go on is released.
    for (const name of ["ClaimRuns", "SettleFirstSegments"]) expect(child[name].Catch[0]).toMatchObject({ ErrorEquals: ["States.ALL"], Next: "BatchDone" });
    expect(first.FirstSegment.Catch[0]).toMatchObject({ ErrorEquals: ["States.ALL"], Next: "FirstSegmentFailed" });
    expect(handOver.RunSync.Catch[0]).toMatchObject({ ErrorEquals: ["States.ALL"], Next: "ReleaseRun" });
    expect(handOver.DescribeContinuation.Catch[0]).toMatchObject({ ErrorEquals: ["States.ALL"], Next: "ItemDone" });
  });

  test("least privilege: the tick's role invokes its one function, starts and follows sync executions, page-loop segments and its own child executions, writes its Map's results, and nothing else", () => {
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
    expect(byAction("states:StartExecution")).toEqual(
      json({ Ref: logicalId(stack.syncStateMachine.stateMachine) }, { Ref: logicalId(stack.syncStateMachine.pagesStateMachine) }, arn(":stateMachine:CrmIntegration-Dispatch")),
    );
    expect(byAction("states:DescribeExecution")).toEqual(
      json(
        arn(":execution:CrmIntegration-Sync:*"),
        arn(":express:CrmIntegration-SyncPages:*"),
        arn(":execution:CrmIntegration-SyncPages:*"),
        arn(":execution:CrmIntegration-Dispatch/*"),
      ),
    );
    expect(byAction("states:StopExecution")).toEqual(byAction("states:DescribeExecution"));
    const own = statements.filter((statement) => !actionsOf(statement).some((action) => action.startsWith("logs:") || action.startsWith("xray:")));
    expect(new Set(own.flatMap(actionsOf))).toEqual(
      new Set([
        "lambda:InvokeFunction",
        "states:StartExecution",
        "states:DescribeExecution",
        "states:StopExecution",
        "states:RedriveExecution",
        "events:PutTargets",
        "events:PutRule",
        "events:DescribeRule",
        "s3:PutObject",
        "s3:GetObject",
        "s3:ListMultipartUploadParts",
        "s3:AbortMultipartUpload",
      ]),
    );
    expect(byAction("states:RedriveExecution")).toEqual(json(arn(":execution:CrmIntegration-Dispatch/*")));
    for (const statement of statements.filter((s) => actionsOf(s).some((action) => action.startsWith("events:")))) {
      expect(JSON.stringify(statement.Resource)).toContain("rule/StepFunctionsGetEventsForStepFunctionsExecutionRule");
    }
  });

  // https://docs.aws.amazon.com/step-functions/latest/dg/redrive-map-run.html: redriving a Map Run redrives its failed
  // child executions, which needs states:RedriveExecution on them (aws-cdk-lib's DistributedMap grants the same).
  test("a failed Map Run can be redriven: the tick's role may redrive its own child executions, and no other", () => {
    const statements = roleStatements(template, logicalId(stack.syncSchedule.stateMachine.role));
    const redrive = statements.filter((statement) => actionsOf(statement).includes("states:RedriveExecution"));
    expect(redrive.flatMap(resourcesOf)).toEqual([arn(":execution:CrmIntegration-Dispatch/*")]);
  });

  test("context maxConcurrentRuns above pageTaskConcurrency, or below 1, is refused with a message naming it", () => {
    expect(() => synthesize({ ...TEST_CONTEXT, maxConcurrentRuns: "300" })).toThrow(DeployConfigError);
    expect(() => synthesize({ ...TEST_CONTEXT, maxConcurrentRuns: "300" })).toThrow(/maxConcurrentRuns \(300\) must be at most pageTaskConcurrency \(200\)/);
    expect(() => synthesize({ ...TEST_CONTEXT, maxConcurrentRuns: "0" })).toThrow(/maxConcurrentRuns must be from 1/);
  });
});
