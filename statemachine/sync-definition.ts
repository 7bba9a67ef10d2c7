import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** The one state machine definition: CDK deploys this file and the local engine runs it. */
export const SYNC_DEFINITION_PATH = fileURLToPath(new URL("./sync.asl.json", import.meta.url));

export function loadSyncDefinition(): object {
  return JSON.parse(readFileSync(SYNC_DEFINITION_PATH, "utf8")) as object;
}
