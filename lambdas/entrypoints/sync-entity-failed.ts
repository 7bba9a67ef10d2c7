import { awsSyncDeps, observed } from "../aws/aws-composition";
import { makeSyncHandlers } from "../sync/handlers/sync-handlers";

/** Lambda entry of the state machine's EntityFailed Task state (statemachine/sync.asl.json). */
export const handler = observed(makeSyncHandlers(awsSyncDeps()).EntityFailed);
