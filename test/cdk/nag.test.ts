import { Validations } from "aws-cdk-lib";
import { Topic } from "aws-cdk-lib/aws-sns";
import { AwsSolutionsChecks } from "cdk-nag";
import { describe, expect, test } from "vitest";
import { build, synthesize } from "./stack-fixture";

/** Every acknowledgment in the tree: the rule id (without CDK's `Annotation::` prefix), where, and why. */
function acknowledgments(root: import("constructs").IConstruct) {
  return root.node.findAll().flatMap((construct) =>
    construct.node.metadata
      .filter((entry) => entry.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
      .flatMap((entry) =>
        Object.entries(entry.data as Record<string, string>).map(([id, reason]) => ({ id: id.replace(/^annotation::/i, ""), path: construct.node.path, reason })),
      ),
  );
}

describe("CDK stack: cdk-nag AwsSolutions", () => {
  test("no finding, error or warning, is left unacknowledged", () => {
    const { stack } = synthesize();
    const report = new AwsSolutionsChecks(undefined, { verbose: true }).validateScope(stack);
    expect(report.violations.map((violation) => `${violation.ruleName}: ${violation.violatingResources.map((r) => r.constructPath).join(", ")}`)).toEqual([]);
    expect(report.success).toBe(true);
  }, 120_000);

  test("synth with the rule pack registered as bin/app.ts registers it does not fail (and would, on a finding)", () => {
    const { app } = build();
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true }));
    expect(() => app.synth()).not.toThrow();

    const { app: broken, stack } = build();
    new Topic(stack, "TopicWithoutTls");
    Validations.of(broken).addPlugins(new AwsSolutionsChecks(broken, { verbose: true }));
    expect(() => broken.synth()).toThrow(/AwsSolutions-SNS3/);
  });

  test("every acknowledgment says why, in place, and silences a finding that really occurs", () => {
    const { stack } = synthesize();
    const acks = acknowledgments(stack);
    expect(acks.length).toBeGreaterThan(0);
    for (const ack of acks) expect(ack.reason.length, `${ack.id} at ${ack.path}`).toBeGreaterThanOrEqual(80);

    // The same rules with acknowledgments ignored: each AwsSolutions acknowledgment must match a finding at or under its construct.
    const pack = new AwsSolutionsChecks(undefined, { verbose: false });
    (pack as unknown as { isAcknowledged: () => boolean }).isAcknowledged = () => false;
    const findings = pack.validateScope(stack).violations.flatMap((violation) =>
      violation.violatingResources.map((resource) => ({ id: violation.ruleName, path: resource.constructPath ?? "" })),
    );
    for (const ack of acks.filter((a) => a.id.startsWith("AwsSolutions-"))) {
      const matched = findings.some((finding) => finding.id === ack.id && (finding.path === ack.path || finding.path.startsWith(`${ack.path}/`)));
      expect(matched, `stale acknowledgment ${ack.id} at ${ack.path}`).toBe(true);
    }
    // And the other way round: what would fail without them is exactly what they cover.
    expect([...new Set(findings.map((finding) => finding.id))].sort()).toEqual(
      [...new Set(acks.filter((a) => a.id.startsWith("AwsSolutions-")).map((a) => a.id))].sort(),
    );
  });
});
