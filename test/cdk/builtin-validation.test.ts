import { readFileSync } from "node:fs";
import { join } from "node:path";
import { CfnResource } from "aws-cdk-lib";
import { describe, expect, test } from "vitest";
import { build } from "./stack-fixture";

/**
 * `cdk synth` runs CDK's built-in CloudFormation validation, and under cdk.json's
 * `@aws-cdk/core:validateAgainstDefaultRules` a finding fails the synth. The other test apps skip it for its cost
 * (stack-fixture.ts); this file is where it runs.
 */
describe("CDK stack: the built-in CloudFormation validation", () => {
  test("the stack passes CDK's built-in CloudFormation validation with nothing in its report, and a broken resource fails the synth", () => {
    const { app } = build(undefined, { validate: true });
    const assembly = app.synth();
    const report = JSON.parse(readFileSync(join(assembly.directory, "validation-report.json"), "utf8")) as { pluginReports: unknown[] };
    expect(report.pluginReports).toEqual([]);

    const { app: broken, stack } = build(undefined, { validate: true });
    new CfnResource(stack, "TopicWithAnUnknownProperty", { type: "AWS::SNS::Topic", properties: { NotATopicProperty: "x" } });
    expect(() => broken.synth()).toThrow(/NotATopicProperty/);
  }, 120_000);
});
