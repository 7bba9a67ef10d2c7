import { awsPreflightJobDeps, observed } from "../aws/aws-composition";
import { makePreflightWorkerHandler } from "../preflight/preflight-worker-handler";

export const handler = observed(makePreflightWorkerHandler(awsPreflightJobDeps()));
