import { awsPreflightJobDeps } from "../aws/aws-composition";
import { makePreflightWorkerHandler } from "../preflight/preflight-worker-handler";

export const handler = makePreflightWorkerHandler(awsPreflightJobDeps());
