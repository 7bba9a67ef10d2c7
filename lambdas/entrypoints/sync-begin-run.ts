import { awsSyncDeps } from "../aws/aws-composition";
import { makeSyncHandlers } from "../sync/handlers/sync-handlers";

/** Lambda entry of the state machine's BeginRun Task state (statemachine/sync.asl.json). */
export const handler = makeSyncHandlers(awsSyncDeps()).BeginRun;
