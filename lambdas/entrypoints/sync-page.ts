import { awsSyncDeps, observed } from "../aws/aws-composition";
import { makeSyncHandlers } from "../sync/handlers/sync-handlers";

/** Lambda entry of the state machine's SyncPage Task state (statemachine/sync-pages.asl.json). */
export const handler = observed(makeSyncHandlers(awsSyncDeps()).SyncPage);
