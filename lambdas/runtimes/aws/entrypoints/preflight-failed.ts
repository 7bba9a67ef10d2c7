import { awsPreflightFailedDeps, observed } from "../aws-composition";
import { makePreflightFailedHandler } from "../../../handlers/preflight/preflight-worker-handler";

/** Lambda entry of the preflight worker's on-failure destination (an invocation that failed or timed out). */
export const handler = observed(makePreflightFailedHandler(awsPreflightFailedDeps()));
