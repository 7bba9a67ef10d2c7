import { Validations } from "aws-cdk-lib";
import { AwsSolutionsChecks } from "cdk-nag";
import { describe, expect, test } from "vitest";
import { logicalId, synthesize, TEST_CONTEXT } from "./stack-fixture";

/**
 * The console's distribution with the deployer's own domain, certificate and WAF web ACL (context
 * consoleDomainName, consoleCertificateArn, consoleWebAclArn: docs/console-hosting.md), and without them.
 */
const CERTIFICATE = "arn:aws:acm:us-east-1:111122223333:certificate/0b7c8f1e-2f44-4d3b-9a55-6c1d2e3f4a5b";
const WEB_ACL = "arn:aws:wafv2:us-east-1:111122223333:global/webacl/crm-console/7d1c2b3a-4e5f-6a7b-8c9d-0e1f2a3b4c5d";
const OWN = { ...TEST_CONTEXT, consoleDomainName: "crm.example.com", consoleCertificateArn: CERTIFICATE, consoleWebAclArn: WEB_ACL };

function distributionConfig(synthesized: ReturnType<typeof synthesize>): Record<string, any> {
  const resources = synthesized.template.toJSON().Resources as Record<string, { Properties: Record<string, any> }>;
  return resources[logicalId(synthesized.stack.console.distribution)]!.Properties.DistributionConfig;
}

/** The AwsSolutions rule ids acknowledged on the distribution. */
function acknowledgedOnDistribution(synthesized: ReturnType<typeof synthesize>): string[] {
  return synthesized.stack.console.distribution.node.metadata
    .filter((entry) => entry.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
    .flatMap((entry) => Object.keys(entry.data as Record<string, string>).map((id) => id.replace(/^annotation::/i, "")));
}

describe("console distribution: own domain, TLS 1.2 at least, WAF web ACL", () => {
  test("without them: CloudFront's default name and certificate, no web ACL, and the TLS and WAF findings acknowledged in place", () => {
    const plain = synthesize();
    const config = distributionConfig(plain);
    expect(config.Aliases).toBeUndefined();
    expect(config.WebACLId).toBeUndefined();
    expect(config.ViewerCertificate).toBeUndefined();
    expect(acknowledgedOnDistribution(plain)).toEqual(expect.arrayContaining(["AwsSolutions-CFR2", "AwsSolutions-CFR4"]));
  }, 120_000);

  test("a domain and its certificate: the distribution answers on that name with the ACM certificate over SNI, TLS 1.2 at least, and ConsoleUrl is that name", () => {
    const own = synthesize(OWN);
    const config = distributionConfig(own);
    expect(config.Aliases).toEqual(["crm.example.com"]);
    expect(config.ViewerCertificate).toEqual({ AcmCertificateArn: CERTIFICATE, MinimumProtocolVersion: "TLSv1.2_2021", SslSupportMethod: "sni-only" });
    own.template.hasOutput("ConsoleUrl", { Value: "https://crm.example.com/" });
  });

  test("a web ACL: the distribution is attached to it by ARN (WAFv2)", () => {
    expect(distributionConfig(synthesize(OWN)).WebACLId).toBe(WEB_ACL);
  });

  test("with both given, cdk-nag passes the TLS and WAF rules with no acknowledgment left on the distribution", () => {
    const own = synthesize(OWN);
    const report = new AwsSolutionsChecks(undefined, { verbose: true }).validateScope(own.stack);
    expect(report.violations.map((violation) => violation.ruleName)).toEqual([]);
    expect(acknowledgedOnDistribution(own)).not.toContain("AwsSolutions-CFR2");
    expect(acknowledgedOnDistribution(own)).not.toContain("AwsSolutions-CFR4");
  }, 120_000);

  test("a domain without a certificate, or a certificate without a domain, fails synth naming both keys", () => {
    expect(() => synthesize({ ...TEST_CONTEXT, consoleDomainName: "crm.example.com" })).toThrow(/consoleDomainName and consoleCertificateArn go together/);
    expect(() => synthesize({ ...TEST_CONTEXT, consoleCertificateArn: CERTIFICATE })).toThrow(/consoleDomainName and consoleCertificateArn go together/);
  });

  test("a certificate outside us-east-1, a regional web ACL, or a name that is no domain fails synth naming the key", () => {
    const inEurope = CERTIFICATE.replace("us-east-1", "eu-west-1");
    expect(() => synthesize({ ...OWN, consoleCertificateArn: inEurope })).toThrow(/context consoleCertificateArn must be an ACM certificate ARN in us-east-1/);
    const regional = "arn:aws:wafv2:eu-west-1:111122223333:regional/webacl/crm/7d1c2b3a-4e5f-6a7b-8c9d-0e1f2a3b4c5d";
    expect(() => synthesize({ ...OWN, consoleWebAclArn: regional })).toThrow(/context consoleWebAclArn must be the ARN of a WAF web ACL of CloudFront scope/);
    for (const name of ["https://crm.example.com", "crm", "crm..example.com", "-crm.example.com"]) {
      expect(() => synthesize({ ...OWN, consoleDomainName: name }), name).toThrow(/context consoleDomainName must be a domain name/);
    }
  });
});
