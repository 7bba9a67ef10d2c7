import { awsPreflightJobDeps, observed } from "../aws-composition";
import { makePreflightWorkerHandler } from "../../../handlers/preflight/preflight-worker-handler";

export const handler = observed(makePreflightWorkerHandler(awsPreflightJobDeps()));
