import { App, Validations } from "aws-cdk-lib";
import { AwsSolutionsChecks } from "cdk-nag";
import { ensureConsoleBuilt } from "../lambdas/runtimes/local/console-build";
import { CrmIntegrationStack, STACK_NAME } from "../lib/crm-integration-stack";

const app = new App();
// The stack deploys console/dist: build it first when it is missing or older than console/ (as npm start does), so a
// deploy never ships a stale page. A build made elsewhere (-c consoleBuildDir=...) is taken as it is.
if (app.node.tryGetContext("consoleBuildDir") === undefined) await ensureConsoleBuilt(undefined, (line) => console.error(line));
new CrmIntegrationStack(app, STACK_NAME);
// cdk-nag's AWS Solutions rules on every synth: a finding that is not acknowledged (with its reason, in place) fails `cdk synth`.
Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true }));
