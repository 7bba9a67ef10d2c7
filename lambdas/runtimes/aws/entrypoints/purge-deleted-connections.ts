import { awsPurgeDeps, observed } from "../aws-composition";
import { makePurgeHandler } from "../../../handlers/retention/purge-handler";

/** Lambda entry of the hourly purge of deleted connections' data (EventBridge rule). */
export const handler = observed(makePurgeHandler(awsPurgeDeps()));
