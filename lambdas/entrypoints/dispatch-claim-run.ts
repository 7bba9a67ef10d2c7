import { awsStartSyncDeps } from "../aws/aws-composition";
import { makeDispatchHandlers } from "../sync/handlers/dispatch-handler";

/** Lambda entry of the schedule tick's ClaimRun Task (statemachine/dispatch.asl.json). */
export const handler = makeDispatchHandlers(awsStartSyncDeps()).ClaimRun;
