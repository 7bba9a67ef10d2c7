import { awsStartSyncDeps, observed } from "../aws/aws-composition";
import { makeDispatchHandler } from "../sync/handlers/dispatch-handler";

/** Lambda entry of the schedule tick's Task states, ListConnections, ClaimRuns and ReleaseRun (statemachine/dispatch.asl.json). */
export const handler = observed(makeDispatchHandler(awsStartSyncDeps()));
