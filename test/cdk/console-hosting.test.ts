import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Stack, type CfnElement } from "aws-cdk-lib";
import { Match } from "aws-cdk-lib/assertions";
import { describe, expect, test } from "vitest";
import { CONSOLE_SECURITY_HEADERS } from "../../console/site";
import { PUBLIC_ROUTE_KEYS, ROUTES } from "../../lambdas/handlers/http/routes";
import { API_PATH_PATTERN, RUNTIME_CONFIG_KEY } from "../../lib/console-hosting";
import { actionsOf, CONSOLE_BUILD_FIXTURE, logicalId, resourcesOf, roleStatements, synthesize, TEST_CONTEXT } from "./stack-fixture";

const { app, stack, template } = synthesize();
const resources = template.toJSON().Resources as Record<string, { Type: string; Properties: Record<string, any> }>;
const hosting = stack.console;
const distribution = () => resources[logicalId(hosting.distribution)]!.Properties.DistributionConfig;
const apiBehaviour = () => (distribution().CacheBehaviors as { PathPattern: string }[]).find((behaviour) => behaviour.PathPattern === API_PATH_PATTERN) as Record<string, any>;
const originById = (id: string) => (distribution().Origins as { Id: string }[]).find((origin) => origin.Id === id) as Record<string, any>;

/** CloudFront's managed policies, by the ids AWS publishes (docs: "Use managed cache/origin request policies"). */
const CACHING_DISABLED = "4135ea2d-6df8-44a3-9df3-4b5a84be39ad";
const ALL_VIEWER_EXCEPT_HOST_HEADER = "b689b0a8-53d0-40ab-baf2-68738e2966ac";

/** `directive value...` pairs of a CSP. */
const cspDirectives = (csp: string) =>
  new Map(csp.split(";").map((part) => part.trim().split(/\s+/)).map(([name, ...values]) => [name!, values] as const));

/** A BucketDeployment's custom resource in the template. */
const deploymentResource = (deployment: typeof hosting.assetsDeployment) =>
  resources[Stack.of(deployment).getLogicalId(deployment.node.findChild("CustomResource").node.defaultChild as CfnElement)]!.Properties;

/** The staged folder of a deployment source, from the custom resource's `<hash>.zip` key. */
const stagedSource = (key: string) => join(app.synth().directory, `asset.${key.replace(/\.zip$/, "")}`);

describe("console hosting: S3 and CloudFront", () => {
  test("origin access control: the distribution reads the bucket through an OAC (SigV4, always signed), never an OAI, and the bucket lets only this distribution get objects", () => {
    template.resourceCountIs("AWS::CloudFront::OriginAccessControl", 1);
    template.hasResourceProperties("AWS::CloudFront::OriginAccessControl", {
      OriginAccessControlConfig: { OriginAccessControlOriginType: "s3", SigningBehavior: "always", SigningProtocol: "sigv4" },
    });
    template.resourceCountIs("AWS::CloudFront::CloudFrontOriginAccessIdentity", 0);
    const s3Origin = originById(distribution().DefaultCacheBehavior.TargetOriginId);
    expect(s3Origin.DomainName).toEqual({ "Fn::GetAtt": [logicalId(hosting.bucket), "RegionalDomainName"] });
    expect(s3Origin.OriginAccessControlId).toEqual({ "Fn::GetAtt": [expect.stringMatching(/OriginAccessControl/), "Id"] });
    expect(s3Origin.S3OriginConfig.OriginAccessIdentity).toBe("");

    const policy = Object.values(resources).find((r) => r.Type === "AWS::S3::BucketPolicy" && r.Properties.Bucket.Ref === logicalId(hosting.bucket))!;
    const allows = (policy.Properties.PolicyDocument.Statement as Record<string, any>[]).filter((statement) => statement.Effect === "Allow");
    expect(allows).toEqual([
      {
        Effect: "Allow",
        Principal: { Service: "cloudfront.amazonaws.com" },
        Action: "s3:GetObject",
        Resource: { "Fn::Join": ["", [{ "Fn::GetAtt": [logicalId(hosting.bucket), "Arn"] }, "/*"]] },
        Condition: { StringEquals: { "AWS:SourceArn": expect.objectContaining({ "Fn::Join": expect.arrayContaining([expect.arrayContaining([{ Ref: logicalId(hosting.distribution) }])]) }) } },
      },
    ]);
  });

  test("the console bucket and the log bucket block all public access, are encrypted at rest and refuse requests without TLS", () => {
    for (const bucket of [hosting.bucket, hosting.logBucket]) {
      const props = resources[logicalId(bucket)]!.Properties;
      expect(props.PublicAccessBlockConfiguration, bucket.node.path).toEqual({ BlockPublicAcls: true, BlockPublicPolicy: true, IgnorePublicAcls: true, RestrictPublicBuckets: true });
      expect(props.BucketEncryption.ServerSideEncryptionConfiguration, bucket.node.path).toEqual([{ ServerSideEncryptionByDefault: { SSEAlgorithm: "AES256" } }]);
      const policy = Object.values(resources).find((r) => r.Type === "AWS::S3::BucketPolicy" && r.Properties.Bucket.Ref === logicalId(bucket))!;
      expect(policy.Properties.PolicyDocument.Statement, bucket.node.path).toContainEqual(
        expect.objectContaining({ Effect: "Deny", Action: "s3:*", Principal: { AWS: "*" }, Condition: { Bool: { "aws:SecureTransport": "false" } } }),
      );
    }
    expect(resources[logicalId(hosting.bucket)]!.Properties.WebsiteConfiguration).toBeUndefined();
  });

  test("/api/* goes to the HTTP API origin over HTTPS only: every method, caching disabled, every viewer header but Host (so Authorization) forwarded", () => {
    const behaviour = apiBehaviour();
    expect(behaviour).toBeDefined();
    expect(behaviour.CachePolicyId).toBe(CACHING_DISABLED);
    expect(behaviour.OriginRequestPolicyId).toBe(ALL_VIEWER_EXCEPT_HOST_HEADER);
    expect(behaviour.ViewerProtocolPolicy).toBe("https-only");
    expect(behaviour.AllowedMethods.sort()).toEqual(["DELETE", "GET", "HEAD", "OPTIONS", "PATCH", "POST", "PUT"]);
    const origin = originById(behaviour.TargetOriginId);
    expect(origin.DomainName).toEqual({
      "Fn::Join": ["", [{ Ref: logicalId(stack.api.httpApi) }, ".execute-api.", { Ref: "AWS::Region" }, ".", { Ref: "AWS::URLSuffix" }]],
    });
    expect(origin.CustomOriginConfig).toEqual({ OriginProtocolPolicy: "https-only", OriginSSLProtocols: ["TLSv1.2"] });
    expect(origin.OriginPath).toBeUndefined();
  });

  test("one origin, no CORS: every API route (authenticated or public) is under /api/, the path CloudFront forwards unchanged, and the API allows no cross-origin caller", () => {
    const prefix = API_PATH_PATTERN.replace(/\*$/, "");
    for (const routeKey of [...ROUTES.map((route) => route.routeKey), ...PUBLIC_ROUTE_KEYS]) expect(routeKey.split(" ")[1], routeKey).toMatch(new RegExp(`^${prefix}`));
    template.allResourcesProperties("AWS::ApiGatewayV2::Api", { CorsConfiguration: Match.absent() });
    // No function rewrites the path: /api/v1/... reaches the $default stage as the routes name it.
    expect(apiBehaviour().FunctionAssociations).toBeUndefined();
    template.resourceCountIs("AWS::CloudFront::Function", 0);
  });

  test("the page is the default root object, served over HTTPS (HTTP redirects), GET and HEAD only", () => {
    expect(distribution().DefaultRootObject).toBe("index.html");
    expect(distribution().DefaultCacheBehavior).toMatchObject({ ViewerProtocolPolicy: "redirect-to-https", AllowedMethods: ["GET", "HEAD"] });
  });
});

describe("console hosting: security headers", () => {
  const policy = () => resources[logicalId(hosting.responseHeaders)]!.Properties.ResponseHeadersPolicyConfig.SecurityHeadersConfig;

  test("a CSP without unsafe-inline (or any inline or eval) script, frame-ancestors 'none', on the page and the API behaviours, overriding the origin's", () => {
    const csp = cspDirectives(policy().ContentSecurityPolicy.ContentSecurityPolicy);
    expect(policy().ContentSecurityPolicy.Override).toBe(true);
    expect(csp.get("script-src")).toEqual(["'self'"]);
    expect(csp.get("default-src")).toEqual(["'none'"]);
    expect(csp.get("frame-ancestors")).toEqual(["'none'"]);
    expect(csp.get("object-src") ?? csp.get("default-src")).toEqual(["'none'"]);
    for (const [name, values] of csp) for (const value of values) expect(value, name).not.toMatch(/^'unsafe-|^\*$/);
    const policyRef = { Ref: logicalId(hosting.responseHeaders) };
    expect(distribution().DefaultCacheBehavior.ResponseHeadersPolicyId).toEqual(policyRef);
    expect(apiBehaviour().ResponseHeadersPolicyId).toEqual(policyRef);
  });

  test("the CSP is the local server's, with only the identity provider's origin added to connect-src (the page fetches its discovery and token endpoints)", () => {
    const local = cspDirectives(CONSOLE_SECURITY_HEADERS["content-security-policy"]!);
    const aws = cspDirectives(policy().ContentSecurityPolicy.ContentSecurityPolicy);
    expect([...aws.keys()]).toEqual([...local.keys()]);
    for (const [name, values] of local) {
      expect(aws.get(name), name).toEqual(name === "connect-src" ? [...values, new URL(TEST_CONTEXT.jwtIssuer).origin] : values);
    }
  });

  test("consoleConnectOrigins adds origins to connect-src after the issuer's (a token endpoint on another host); anything but https origins fails synth", () => {
    const { stack: other, template: changed } = synthesize({ ...TEST_CONTEXT, consoleConnectOrigins: "https://auth.example.com, https://login.example.net:8443" });
    const csp = cspDirectives(changed.toJSON().Resources[logicalId(other.console.responseHeaders)].Properties.ResponseHeadersPolicyConfig.SecurityHeadersConfig.ContentSecurityPolicy.ContentSecurityPolicy);
    expect(csp.get("connect-src")).toEqual(["'self'", "https://idp.example.com", "https://auth.example.com", "https://login.example.net:8443"]);
    for (const bad of ["http://auth.example.com", "https://auth.example.com/oauth2/token", "*", "https://auth.example.com; script-src *"]) {
      expect(() => synthesize({ ...TEST_CONTEXT, consoleConnectOrigins: bad }), bad).toThrow(/context consoleConnectOrigins must be https origins/);
    }
  });

  test("HSTS for two years with subdomains, nosniff, Referrer-Policy no-referrer, X-Frame-Options DENY", () => {
    expect(policy().StrictTransportSecurity).toEqual({ AccessControlMaxAgeSec: 63_072_000, IncludeSubdomains: true, Override: true });
    expect(policy().ContentTypeOptions).toEqual({ Override: true });
    expect(policy().ReferrerPolicy).toEqual({ ReferrerPolicy: "no-referrer", Override: true });
    expect(policy().FrameOptions).toEqual({ FrameOption: "DENY", Override: true });
  });
});

describe("console hosting: the build and its runtime config", () => {
  test("BucketDeployment ships the build: hashed assets/ first, immutable and never pruned; then the page and config.json, no-cache, pruned; .source-hash not uploaded", () => {
    const assets = deploymentResource(hosting.assetsDeployment);
    const page = deploymentResource(hosting.pageDeployment);
    expect(assets).toMatchObject({ Exclude: ["*"], Include: ["assets/*"], Prune: false, SystemMetadata: { "cache-control": "public, max-age=31536000, immutable" } });
    expect(page).toMatchObject({ Exclude: ["assets/*", ".source-hash"], Prune: true, SystemMetadata: { "cache-control": "no-cache" } });
    expect(page.Include).toBeUndefined();
    for (const resource of [assets, page]) expect(resource.DestinationBucketName).toEqual({ Ref: logicalId(hosting.bucket) });
    const pageResourceId = Stack.of(hosting).getLogicalId(hosting.pageDeployment.node.findChild("CustomResource").node.defaultChild as CfnElement);
    const assetsResourceId = Stack.of(hosting).getLogicalId(hosting.assetsDeployment.node.findChild("CustomResource").node.defaultChild as CfnElement);
    expect(template.toJSON().Resources[pageResourceId].DependsOn).toContain(assetsResourceId);

    // The build folder as staged: the page and its assets, not the local staleness hash.
    const build = stagedSource(assets.SourceObjectKeys[0]);
    expect(page.SourceObjectKeys[0]).toBe(assets.SourceObjectKeys[0]);
    expect(existsSync(join(build, "index.html"))).toBe(true);
    expect(existsSync(join(build, "assets", "index-fixture.js"))).toBe(true);
    expect(existsSync(join(build, ".source-hash"))).toBe(false);
  });

  test("config.json: OIDC sign-in against the JWT authorizer's issuer, as client consoleClientId (by default jwtAudience's first, and always one of them), no apiBaseUrl (the API is this origin)", () => {
    const page = deploymentResource(hosting.pageDeployment);
    const config = JSON.parse(readFileSync(join(stagedSource(page.SourceObjectKeys[1]), RUNTIME_CONFIG_KEY), "utf8"));
    // Exactly these keys: the page's RuntimeConfigSchema is strict, so an extra key would stop its sign-in.
    expect(config).toEqual({ auth: { mode: "oidc", issuer: TEST_CONTEXT.jwtIssuer, clientId: "crm-web" } });
    template.hasResourceProperties("AWS::ApiGatewayV2::Authorizer", { JwtConfiguration: { Issuer: config.auth.issuer, Audience: Match.arrayWith([config.auth.clientId]) } });

    const other = synthesize({ ...TEST_CONTEXT, consoleClientId: "crm-cli" });
    const otherPage = other.template.toJSON().Resources[
      Stack.of(other.stack).getLogicalId(other.stack.console.pageDeployment.node.findChild("CustomResource").node.defaultChild as CfnElement)
    ].Properties;
    const otherConfig = JSON.parse(readFileSync(join(other.app.synth().directory, `asset.${otherPage.SourceObjectKeys[1].replace(/\.zip$/, "")}`, RUNTIME_CONFIG_KEY), "utf8"));
    expect(otherConfig.auth).toEqual({ mode: "oidc", issuer: TEST_CONTEXT.jwtIssuer, clientId: "crm-cli" });
    expect(() => synthesize({ ...TEST_CONTEXT, consoleClientId: "  " })).toThrow(/context consoleClientId must not be empty/);
    expect(() => synthesize({ ...TEST_CONTEXT, consoleClientId: "owner-console" })).toThrow(
      /context consoleClientId \("owner-console"\) must be one of jwtAudience \(crm-web, crm-cli\): the console sends its ID token/,
    );
  });

  test("a missing console build fails synth with a message naming the folder, npm run build and consoleBuildDir", () => {
    const missing = join(CONSOLE_BUILD_FIXTURE, "no-build-here");
    expect(() => synthesize({ ...TEST_CONTEXT, consoleBuildDir: missing })).toThrow(
      new RegExp(`console build is missing: no index\\.html in ${missing.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\. Run \`npm run build\` first, or pass -c consoleBuildDir=`),
    );
  });

  test("the deployment handler's role: no managed policy, logs only to its own log group, S3 only on the console bucket and the CDK asset bucket, no CloudFront action", () => {
    const roleId = logicalId(hosting.deployRole);
    expect(resources[roleId]!.Properties.ManagedPolicyArns).toBeUndefined();
    const handlers = Object.values(resources).filter((r) => r.Type === "AWS::Lambda::Function" && JSON.stringify(r.Properties.Role) === JSON.stringify({ "Fn::GetAtt": [roleId, "Arn"] }));
    expect(handlers).toHaveLength(1);
    expect(handlers[0]!.Properties.LoggingConfig).toEqual({ LogGroup: { Ref: logicalId(hosting.deployLogGroup) } });
    expect(resources[logicalId(hosting.deployLogGroup)]!.Properties.RetentionInDays).toBe(TEST_CONTEXT.logRetentionDays);

    const statements = roleStatements(template, roleId);
    const logs = statements.filter((statement) => actionsOf(statement).some((action) => action.startsWith("logs:")));
    expect(logs).toEqual([{ Effect: "Allow", Action: ["logs:CreateLogStream", "logs:PutLogEvents"], Resource: { "Fn::GetAtt": [logicalId(hosting.deployLogGroup), "Arn"] } }]);
    const consoleBucket = [{ "Fn::GetAtt": [logicalId(hosting.bucket), "Arn"] }, { "Fn::Join": ["", [{ "Fn::GetAtt": [logicalId(hosting.bucket), "Arn"] }, "/*"]] }];
    for (const statement of statements.filter((s) => !logs.includes(s))) {
      for (const action of actionsOf(statement)) expect(action).toMatch(/^s3:/);
      for (const resource of resourcesOf(statement)) {
        const text = JSON.stringify(resource);
        const onConsoleBucket = consoleBucket.some((allowed) => JSON.stringify(allowed) === text);
        expect(onConsoleBucket || text.includes("cdk-hnb659fds-assets-"), text).toBe(true);
        if (!onConsoleBucket) expect(actionsOf(statement).every((action) => /^s3:(Get|List)/.test(action)), "read only on the asset bucket").toBe(true);
      }
    }
  });

  test("access logs: CloudFront and the console bucket log to the log bucket, which keeps them logRetentionDays", () => {
    expect(distribution().Logging).toEqual({ Bucket: { "Fn::GetAtt": [logicalId(hosting.logBucket), "RegionalDomainName"] }, Prefix: "cloudfront/" });
    expect(resources[logicalId(hosting.bucket)]!.Properties.LoggingConfiguration).toEqual({ DestinationBucketName: { Ref: logicalId(hosting.logBucket) }, LogFilePrefix: "console-bucket/" });
    const logBucket = resources[logicalId(hosting.logBucket)]!.Properties;
    expect(logBucket.LifecycleConfiguration.Rules).toEqual([{ ExpirationInDays: TEST_CONTEXT.logRetentionDays, Status: "Enabled" }]);
    // CloudFront's standard logging writes with an ACL, so the log bucket keeps ACLs on (owner preferred); S3's own
    // log delivery gets a bucket policy statement instead of the LogDeliveryWrite ACL.
    expect(logBucket.OwnershipControls.Rules).toEqual([{ ObjectOwnership: "BucketOwnerPreferred" }]);
    expect(logBucket.AccessControl).toBeUndefined();
    const policy = Object.values(resources).find((r) => r.Type === "AWS::S3::BucketPolicy" && r.Properties.Bucket.Ref === logicalId(hosting.logBucket))!;
    expect((policy.Properties.PolicyDocument.Statement as Record<string, any>[]).filter((statement) => statement.Effect === "Allow")).toEqual([
      {
        Effect: "Allow",
        Principal: { Service: "logging.s3.amazonaws.com" },
        Action: "s3:PutObject",
        Resource: { "Fn::Join": ["", [{ "Fn::GetAtt": [logicalId(hosting.logBucket), "Arn"] }, "/console-bucket/*"]] },
        Condition: { ArnLike: { "aws:SourceArn": { "Fn::GetAtt": [logicalId(hosting.bucket), "Arn"] } }, StringEquals: { "aws:SourceAccount": { Ref: "AWS::AccountId" } } },
      },
    ]);
  });

  test("outputs: ConsoleUrl is the distribution's https:// address, ConsoleDistributionId its id", () => {
    const outputs = template.toJSON().Outputs;
    expect(outputs.ConsoleUrl.Value).toEqual({ "Fn::Join": ["", ["https://", { "Fn::GetAtt": [logicalId(hosting.distribution), "DomainName"] }, "/"]] });
    expect(outputs.ConsoleDistributionId.Value).toEqual({ Ref: logicalId(hosting.distribution) });
  });
});
