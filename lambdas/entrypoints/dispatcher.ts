import { awsStartSyncDeps, observed } from "../aws/aws-composition";
import { makeDispatchHandler } from "../sync/handlers/dispatch-handler";

/** The Dispatcher Lambda: every Lambda Task state of the schedule tick (statemachine/dispatch.asl.json). */
export const handler = observed(makeDispatchHandler(awsStartSyncDeps()));
