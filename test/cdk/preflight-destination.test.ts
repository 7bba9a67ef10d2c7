import { describe, expect, test } from "vitest";
import { PREFLIGHT_ABANDONED_AFTER_MS, PREFLIGHT_TIME_LIMIT_MS } from "../../lambdas/domain/preflight/preflight-failure";
import { TABLE_ACCESS } from "../../lib/table-access";
import { functionId, logicalId, roleId, roleStatements, actionsOf, serviceFunctions, synthesize } from "./stack-fixture";

/**
 * The preflight worker runs asynchronously (POST .../preflight invokes it with InvocationType Event); a worker that
 * fails or times out cannot end its own run, so Lambda hands the job to PreflightFailed, which does.
 */
const { stack, template } = synthesize();
const functions = serviceFunctions(stack);
const resources = template.toJSON().Resources as Record<string, { Type: string; Properties: Record<string, any> }>;

describe("the preflight worker's on-failure destination", () => {
  test("the worker's live alias: no retry, an event at most the check's time limit old, and on failure PreflightFailed's live alias", () => {
    const configs = Object.values(resources).filter((resource) => resource.Type === "AWS::Lambda::EventInvokeConfig");
    expect(configs).toHaveLength(1);
    expect(configs[0]!.Properties).toEqual({
      FunctionName: { Ref: functionId(functions.PreflightWorker!) },
      // The alias's name, read from its ARN (the 8th field): live.
      Qualifier: { "Fn::Select": [7, { "Fn::Split": [":", { Ref: logicalId(functions.PreflightWorker!.alias) }] }] },
      MaximumRetryAttempts: 0,
      MaximumEventAgeInSeconds: PREFLIGHT_TIME_LIMIT_MS / 1000,
      DestinationConfig: { OnFailure: { Destination: { Ref: logicalId(functions.PreflightFailed!.alias) } } },
    });
  });

  test("the check's time limit ends it inside the worker's Lambda timeout, and a run is called abandoned only once that timeout has passed", () => {
    const timeoutMs = (resources[functionId(functions.PreflightWorker!)]!.Properties.Timeout as number) * 1000;
    expect(PREFLIGHT_TIME_LIMIT_MS).toBeLessThan(timeoutMs);
    expect(timeoutMs - PREFLIGHT_TIME_LIMIT_MS).toBeGreaterThanOrEqual(60_000);
    expect(PREFLIGHT_ABANDONED_AFTER_MS).toBeGreaterThan(timeoutMs);
  });

  test("PreflightFailed reads and writes preflight runs and nothing else: no key, no source, no state machine, no invoke", () => {
    const statements = roleStatements(template, roleId(functions.PreflightFailed!));
    const actions = statements.flatMap(actionsOf).filter((action) => !action.startsWith("logs:") && !action.startsWith("xray:"));
    expect(actions.sort()).toEqual([...TABLE_ACCESS.PreflightFailed].sort());
    const env = Object.keys(resources[functionId(functions.PreflightFailed!)]!.Properties.Environment.Variables).filter((key) => !key.startsWith("POWERTOOLS_"));
    expect(env.sort()).toEqual(["NODE_OPTIONS", "TABLE_NAME"]);
  });
});
