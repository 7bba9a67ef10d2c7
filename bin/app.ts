import { App } from "aws-cdk-lib";
import { CrmIntegrationStack } from "../lib/crm-integration-stack";

const app = new App();
new CrmIntegrationStack(app, "CrmIntegration");
