import { awsSyncDeps, observed } from "../aws-composition";
import { makeSyncHandlers } from "../../../handlers/sync/sync-handlers";

/** Lambda entry of the state machine's BeginRun Task state (statemachine/sync.asl.json). */
export const handler = observed(makeSyncHandlers(awsSyncDeps()).BeginRun);
