import { awsSyncDeps, observed } from "../aws-composition";
import { makeSyncHandlers } from "../../../handlers/sync/sync-handlers";

/** Lambda entry of the state machine's SyncPage Task state (statemachine/sync-pages.asl.json). */
export const handler = observed(makeSyncHandlers(awsSyncDeps()).SyncPage);
