import { awsStartSyncDeps, observed } from "../aws/aws-composition";
import { makeDispatchHandler } from "../sync/handlers/dispatch-handler";

/** Lambda entry of the scheduled dispatcher (EventBridge rule). */
export const handler = observed(makeDispatchHandler(awsStartSyncDeps()));
