import { awsPurgeDeps } from "../aws/aws-composition";
import { makePurgeHandler } from "../retention/purge-handler";

/** Lambda entry of the hourly purge of deleted connections' data (EventBridge rule). */
export const handler = makePurgeHandler(awsPurgeDeps());
