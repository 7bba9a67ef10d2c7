import { mkdtempSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { inject } from "vitest";
import { App, Stack, type CfnElement } from "aws-cdk-lib";
import { Template } from "aws-cdk-lib/assertions";
import type { IConstruct } from "constructs";
import { CrmIntegrationStack } from "../../lib/crm-integration-stack";
import type { ServiceFunction } from "../../lib/service-function";

/** Context a real deployment would pass with -c (every key set, none a placeholder). */
export const TEST_CONTEXT = {
  jwtIssuer: "https://idp.example.com/realms/workspaces",
  jwtAudience: "crm-web, crm-cli",
  syncSchedule: "15m",
  logRetentionDays: 14,
  alarmEmail: "ops@example.com",
} as const;

export interface Synthesized {
  readonly app: App;
  readonly stack: CrmIntegrationStack;
  readonly template: Template;
}

/** cdk.json's feature flags (the `@aws-cdk/...` keys): the tests build the stack under the same ones as `cdk synth`. */
export const CDK_JSON = JSON.parse(readFileSync(fileURLToPath(new URL("../../cdk.json", import.meta.url)), "utf8")) as { context: Record<string, unknown> };
const FEATURE_FLAGS = Object.fromEntries(Object.entries(CDK_JSON.context).filter(([key]) => key.startsWith("@aws-cdk/")));

/**
 * A stand-in console build (index.html, assets/): the stack deploys it, so synth needs one, and a clean clone has no
 * console/dist. A context that names its own consoleBuildDir wins.
 */
export const CONSOLE_BUILD_FIXTURE = fileURLToPath(new URL("./console-build-fixture", import.meta.url));

/**
 * Builds the stack as bin/app.ts does, under cdk.json's feature flags and the given context. Bundling is skipped (the
 * `aws:cdk:bundling-stacks` context set to no stack) unless asked for:
 * test/cdk/bundling.e2e.test.ts bundles for real, once.
 */
export function synthesize(context?: Record<string, unknown>, options: { bundle?: boolean; outdir?: string } = {}): Synthesized {
  if (context === undefined && options.bundle === undefined && options.outdir === undefined) return (defaultSynthesis ??= synthesize(TEST_CONTEXT));
  const { app, stack } = build(context ?? TEST_CONTEXT, options);
  return { app, stack, template: Template.fromStack(stack) };
}

/**
 * The stack under TEST_CONTEXT, synthesized once per worker and shared by every file that only reads it (a worker
 * runs test files one after another, vitest.config.ts's isolate: false): a synth takes seconds. A test that changes
 * the stack builds its own (build(), or synthesize with a context).
 */
let defaultSynthesis: Synthesized | undefined;

/** The app and stack, not yet synthesized (a second synth of an app returns the first one's assembly). */
export function build(context: Record<string, unknown> = TEST_CONTEXT, options: { bundle?: boolean; outdir?: string; validate?: boolean } = {}) {
  const app = new App({
    // CDK's built-in CloudFormation check (a WebAssembly engine: seconds of CPU per process and per synth) runs in
    // one test, test/cdk/builtin-validation.test.ts; `cdk synth` always runs it, and cfn-lint checks the template too.
    builtinCloudFormationValidation: options.validate === true,
    context: { ...FEATURE_FLAGS, consoleBuildDir: CONSOLE_BUILD_FIXTURE, ...context, ...(options.bundle === true ? {} : { "aws:cdk:bundling-stacks": [] }) },
    outdir: options.outdir ?? scratchOutdir(),
  });
  const stack = new CrmIntegrationStack(app, "CrmIntegration");
  return { app, stack };
}

/**
 * Where an App without its own outdir synthesizes. CDK's default is a new folder in the system's temporary folder
 * per App, never removed: 23 MB each (the AWS CLI layer's zip among its assets), 61 of them per `npm test`. Here
 * each App gets its own folder in the run's scratch folder, which the run removes at its end.
 */
const scratchOutdir = (): string => mkdtempSync(join(inject("scratchDir"), "cdk-app-"));

export const logicalId = (construct: IConstruct): string => Stack.of(construct).getLogicalId(construct.node.defaultChild as CfnElement);

export interface Statement {
  readonly Effect: string;
  readonly Action: string | string[];
  readonly Resource: unknown;
  readonly Condition?: Record<string, unknown>;
}

export const actionsOf = (statement: Statement): string[] => (Array.isArray(statement.Action) ? statement.Action : [statement.Action]);
export const resourcesOf = (statement: Statement): unknown[] => (Array.isArray(statement.Resource) ? statement.Resource : [statement.Resource]);

/** Every statement of the identity policies attached to a role (by the role's logical id). */
export function roleStatements(template: Template, roleLogicalId: string): Statement[] {
  const policies = template.findResources("AWS::IAM::Policy");
  return Object.values(policies)
    .filter((policy) => (policy.Properties.Roles as unknown[]).some((role) => JSON.stringify(role) === JSON.stringify({ Ref: roleLogicalId })))
    .flatMap((policy) => policy.Properties.PolicyDocument.Statement as Statement[]);
}

/** The stack's functions, by a short name. */
export function serviceFunctions(stack: CrmIntegrationStack): Record<string, ServiceFunction> {
  return stack.functions();
}

export const roleId = (fn: ServiceFunction): string => Stack.of(fn).getLogicalId(fn.role.node.defaultChild as CfnElement);
export const functionId = (fn: ServiceFunction): string => logicalId(fn.function);
