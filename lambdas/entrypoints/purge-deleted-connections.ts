import { awsPurgeDeps, observed } from "../aws/aws-composition";
import { makePurgeHandler } from "../retention/purge-handler";

/** Lambda entry of the hourly purge of deleted connections' data (EventBridge rule). */
export const handler = observed(makePurgeHandler(awsPurgeDeps()));
