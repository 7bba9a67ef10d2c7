import { existsSync } from "node:fs";
import { join } from "node:path";
import { Duration, Stack, Validations, type CfnElement } from "aws-cdk-lib";
import type { HttpApi } from "aws-cdk-lib/aws-apigatewayv2";
import {
  AllowedMethods,
  CachePolicy,
  Distribution,
  HeadersFrameOption,
  HeadersReferrerPolicy,
  HttpVersion,
  OriginProtocolPolicy,
  OriginRequestPolicy,
  ResponseHeadersPolicy,
  SecurityPolicyProtocol,
  ViewerProtocolPolicy,
} from "aws-cdk-lib/aws-cloudfront";
import { Certificate } from "aws-cdk-lib/aws-certificatemanager";
import { HttpOrigin, S3BucketOrigin } from "aws-cdk-lib/aws-cloudfront-origins";
import { PolicyStatement, Role, ServicePrincipal } from "aws-cdk-lib/aws-iam";
import { Function as LambdaFunction } from "aws-cdk-lib/aws-lambda";
import { LogGroup, RetentionDays } from "aws-cdk-lib/aws-logs";
import { BlockPublicAccess, Bucket, BucketEncryption, ObjectOwnership } from "aws-cdk-lib/aws-s3";
import { BucketDeployment, CacheControl, Source } from "aws-cdk-lib/aws-s3-deployment";
import { Construct } from "constructs";
import { consoleContentSecurityPolicy } from "../console/site";
import type { ConsoleDomain } from "./deploy-config";

/** The CloudFront path pattern that goes to the HTTP API: every route lives under API_PREFIX (/api/v1), so under /api/ as is. */
export const API_PATH_PATTERN = "/api/*";
/** Where the page reads its runtime settings (docs/console.md, "Runtime config"). */
export const RUNTIME_CONFIG_KEY = "config.json";
/** HSTS for two years: the page and the API are only ever served over HTTPS. */
export const HSTS_MAX_AGE = Duration.days(730);
/** Vite writes content-hashed files here; a name never gets new bytes, so browsers may keep them. */
const HASHED_ASSETS = "assets/*";
/** Written by lambdas/runtimes/local/console-build.ts for `npm start`'s staleness check; nothing the page needs. */
const SOURCE_HASH_FILE = ".source-hash";

/**
 * The page's runtime settings in AWS (console/src/runtime-config.ts RuntimeConfigSchema, a strict object): sign in
 * with the workspace identity provider, sending its ID token (whose `aud` is clientId). No apiBaseUrl: the API is
 * this origin's /api/*.
 */
export interface ConsoleRuntimeConfig {
  readonly auth: { readonly mode: "oidc"; readonly issuer: string; readonly clientId: string };
}

export function consoleRuntimeConfig(oidc: { issuer: string; clientId: string }): ConsoleRuntimeConfig {
  return { auth: { mode: "oidc", issuer: oidc.issuer, clientId: oidc.clientId } };
}

// The CSP is the local server's (one policy for both runtimes), with the identity provider's origins in connect-src.
export { consoleContentSecurityPolicy };

export class ConsoleBuildMissingError extends Error {
  override readonly name = "ConsoleBuildMissingError";
}

export interface ConsoleHostingProps {
  readonly httpApi: HttpApi;
  /** A built console (index.html and assets/): context consoleBuildDir, by default console/dist. */
  readonly buildDir: string;
  readonly oidcIssuer: string;
  readonly oidcClientId: string;
  /** More origins the page fetches at sign-in, besides the issuer's (context consoleConnectOrigins). */
  readonly connectOrigins: readonly string[];
  readonly logRetention: RetentionDays;
  /** The console's own domain and its ACM certificate (us-east-1); unset, CloudFront's default name and certificate. */
  readonly domain?: ConsoleDomain;
  /** A WAF web ACL of CloudFront scope (us-east-1) to attach; unset, none. */
  readonly webAclArn?: string;
}

/** The viewer TLS policy with a certificate of the stack's own: TLS 1.2 at least, with CloudFront's 2021 ciphers. */
export const CONSOLE_TLS_POLICY = SecurityPolicyProtocol.TLS_V1_2_2021;

/**
 * The owner's console in AWS: a private S3 bucket behind CloudFront (origin access control), with `/api/*` sent to
 * the onboarding HTTP API, so the page and the API share one origin (no CORS) as they do under `npm start`. The
 * distribution adds the local server's security headers, plus HSTS. docs/console-hosting.md.
 */
export class ConsoleHosting extends Construct {
  readonly bucket: Bucket;
  readonly logBucket: Bucket;
  readonly distribution: Distribution;
  readonly responseHeaders: ResponseHeadersPolicy;
  readonly assetsDeployment: BucketDeployment;
  readonly pageDeployment: BucketDeployment;
  readonly deployRole: Role;
  readonly deployLogGroup: LogGroup;
  private readonly domainName: string | undefined;

  constructor(scope: Construct, id: string, props: ConsoleHostingProps) {
    super(scope, id);
    this.domainName = props.domain?.domainName;
    if (!existsSync(join(props.buildDir, "index.html"))) {
      throw new ConsoleBuildMissingError(
        `the console build is missing: no index.html in ${props.buildDir}. Run \`npm run build\` first, or pass -c consoleBuildDir=<a console build folder> (docs/console-hosting.md).`,
      );
    }

    // S3 server access logs by bucket policy (logging.s3.amazonaws.com), not by the deprecated LogDeliveryWrite ACL.
    this.node.setContext("@aws-cdk/aws-s3:serverAccessLogsUseBucketPolicy", true);
    // CloudFront's standard logs still need ACLs enabled on their bucket (its log delivery account writes with one).
    this.logBucket = new Bucket(this, "AccessLogs", {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_PREFERRED,
      lifecycleRules: props.logRetention === RetentionDays.INFINITE ? [] : [{ expiration: Duration.days(props.logRetention) }],
    });

    this.bucket = new Bucket(this, "Site", {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      serverAccessLogsBucket: this.logBucket,
      serverAccessLogsPrefix: "console-bucket/",
    });

    this.responseHeaders = new ResponseHeadersPolicy(this, "SecurityHeaders", {
      comment: "Owner's console: the local server's security headers, plus HSTS",
      securityHeadersBehavior: {
        contentSecurityPolicy: { contentSecurityPolicy: consoleContentSecurityPolicy([new URL(props.oidcIssuer).origin, ...props.connectOrigins]), override: true },
        strictTransportSecurity: { accessControlMaxAge: HSTS_MAX_AGE, includeSubdomains: true, override: true },
        contentTypeOptions: { override: true },
        frameOptions: { frameOption: HeadersFrameOption.DENY, override: true },
        referrerPolicy: { referrerPolicy: HeadersReferrerPolicy.NO_REFERRER, override: true },
      },
    });

    const stack = Stack.of(this);
    const apiOrigin = new HttpOrigin(`${props.httpApi.apiId}.execute-api.${stack.region}.${stack.urlSuffix}`, {
      protocolPolicy: OriginProtocolPolicy.HTTPS_ONLY,
    });
    this.distribution = new Distribution(this, "Distribution", {
      comment: "Owner's console and its API under one origin",
      defaultRootObject: "index.html",
      ...(props.domain === undefined
        ? {}
        : {
            domainNames: [props.domain.domainName],
            certificate: Certificate.fromCertificateArn(this, "Certificate", props.domain.certificateArn),
            minimumProtocolVersion: CONSOLE_TLS_POLICY,
          }),
      ...(props.webAclArn === undefined ? {} : { webAclId: props.webAclArn }),
      httpVersion: HttpVersion.HTTP2_AND_3,
      enableLogging: true,
      logBucket: this.logBucket,
      logFilePrefix: "cloudfront/",
      defaultBehavior: {
        origin: S3BucketOrigin.withOriginAccessControl(this.bucket),
        viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
        allowedMethods: AllowedMethods.ALLOW_GET_HEAD,
        cachePolicy: CachePolicy.CACHING_OPTIMIZED,
        responseHeadersPolicy: this.responseHeaders,
      },
      additionalBehaviors: {
        // Never cached (every answer is one workspace's, behind its token); every viewer header but Host reaches
        // API Gateway, Authorization included (API Gateway routes by its own host name).
        [API_PATH_PATTERN]: {
          origin: apiOrigin,
          viewerProtocolPolicy: ViewerProtocolPolicy.HTTPS_ONLY,
          allowedMethods: AllowedMethods.ALLOW_ALL,
          cachePolicy: CachePolicy.CACHING_DISABLED,
          originRequestPolicy: OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
          responseHeadersPolicy: this.responseHeaders,
        },
      },
    });
    Validations.of(this.distribution).acknowledge({
      id: "AwsSolutions-CFR1",
      reason:
        "No geo restriction on purpose: workspace owners sign in from anywhere, and every API call already needs the identity provider's token; the page itself is public static code with no data in it.",
    });
    // Only while the deployer has not given one: with a web ACL or a certificate the finding is gone, and the nag
    // test refuses an acknowledgment that silences nothing.
    if (props.webAclArn === undefined) {
      Validations.of(this.distribution).acknowledge({
        id: "AwsSolutions-CFR2",
        reason:
          "No WAF web ACL given: a CloudFront-scope ACL can only be created in us-east-1, and this stack is region-agnostic, so the deployer passes one as context consoleWebAclArn. The API behind /api/* has the JWT authorizer, stage throttling and reserved concurrency (docs/console-hosting.md).",
      });
    }
    if (props.domain === undefined) {
      Validations.of(this.distribution).acknowledge({
        id: "AwsSolutions-CFR4",
        reason:
          "No custom domain given, so the distribution uses CloudFront's default *.cloudfront.net certificate, whose security policy CloudFront fixes; context consoleDomainName and consoleCertificateArn give it an ACM certificate and TLS 1.2 at least (docs/console-hosting.md).",
      });
    }

    // The deployment handler (a CDK-provided Lambda) gets this role instead of its default one, which carries the
    // AWSLambdaBasicExecutionRole managed policy (logs on every log group).
    this.deployLogGroup = new LogGroup(this, "DeployLogs", { retention: props.logRetention });
    this.deployRole = new Role(this, "DeployRole", {
      assumedBy: new ServicePrincipal("lambda.amazonaws.com"),
      description: "Copies the console build into its bucket (BucketDeployment handler)",
    });
    this.deployRole.addToPrincipalPolicy(
      new PolicyStatement({ actions: ["logs:CreateLogStream", "logs:PutLogEvents"], resources: [this.deployLogGroup.logGroupArn] }),
    );

    const source = Source.asset(props.buildDir, { exclude: [SOURCE_HASH_FILE] });
    // Hashed assets first, and never pruned (a few hundred kB a deploy): a page loaded before a deploy keeps its scripts.
    this.assetsDeployment = new BucketDeployment(this, "DeployAssets", {
      destinationBucket: this.bucket,
      sources: [source],
      exclude: ["*"],
      include: [HASHED_ASSETS],
      prune: false,
      cacheControl: [CacheControl.setPublic(), CacheControl.maxAge(Duration.days(365)), CacheControl.immutable()],
      role: this.deployRole,
      logGroup: this.deployLogGroup,
    });
    // Then the page and config.json, revalidated on every load: with CachingOptimized's one-second minimum TTL the
    // edge serves a new deploy within a second, so no invalidation (and no cloudfront:CreateInvalidation on *).
    this.pageDeployment = new BucketDeployment(this, "DeployPage", {
      destinationBucket: this.bucket,
      sources: [source, Source.jsonData(RUNTIME_CONFIG_KEY, consoleRuntimeConfig({ issuer: props.oidcIssuer, clientId: props.oidcClientId }))],
      exclude: [HASHED_ASSETS, SOURCE_HASH_FILE],
      cacheControl: [CacheControl.noCache()],
      role: this.deployRole,
      logGroup: this.deployLogGroup,
    });
    this.pageDeployment.node.addDependency(this.assetsDeployment);
    this.acknowledgeDeployHandler(stack);
  }

  /** The handler is aws-cdk-lib's own (a singleton at stack level); its grants come from BucketDeployment. */
  private acknowledgeDeployHandler(stack: Stack): void {
    const sync =
      "BucketDeployment's own grants for `aws s3 sync` into the console bucket (read, list, write, delete, abort multipart uploads) and read of the CDK asset bucket for the build's zip; every statement names only those two buckets.";
    for (const action of ["s3:GetBucket*", "s3:GetObject*", "s3:List*", "s3:Abort*", "s3:DeleteObject*"]) {
      Validations.of(this.deployRole).acknowledge({ id: `AwsSolutions-IAM5[Action::${action}]`, reason: sync });
    }
    Validations.of(this.deployRole).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${stack.getLogicalId(this.bucket.node.defaultChild as CfnElement)}.Arn>/*]`,
      reason: "Every object of the console bucket: the handler syncs the whole build into it and prunes what the build no longer has. The bucket holds the console and nothing else.",
    });
    Validations.of(this.deployRole).acknowledge({
      id: "AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:s3:::cdk-hnb659fds-assets-<AWS::AccountId>-<AWS::Region>/*]",
      reason: "Objects of the CDK bootstrap asset bucket (read only): the build's zip is named by its content hash, known only at synth, and that bucket holds only this account's CDK assets.",
    });
    const handler = stack.node.findAll().find((construct): construct is LambdaFunction => construct instanceof LambdaFunction && construct.role === this.deployRole);
    if (handler === undefined) throw new Error("the BucketDeployment handler was not found by its role");
    Validations.of(handler).acknowledge({
      id: "AwsSolutions-L1",
      reason: "The runtime of aws-cdk-lib's BucketDeployment handler (Python, with the AWS CLI layer) is chosen by aws-cdk-lib and moves with its upgrades; this stack does not pick or patch it.",
    });
  }

  /** The console's address: its own domain when given, else the distribution's. */
  get url(): string {
    return `https://${this.domainName ?? this.distribution.distributionDomainName}/`;
  }
}
