import { awsStartSyncDeps, observed } from "../aws-composition";
import { makeDispatchHandler } from "../../../handlers/sync/dispatch-handler";

/** The Dispatcher Lambda: every Lambda Task state of the schedule tick (statemachine/dispatch.asl.json). */
export const handler = observed(makeDispatchHandler(awsStartSyncDeps()));
