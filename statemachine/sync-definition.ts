import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** The run's Standard state machine: CDK deploys this file and the local engine runs it. */
export const SYNC_DEFINITION_PATH = fileURLToPath(new URL("./sync.asl.json", import.meta.url));
/** The page loop's Express state machine, started by the Standard one's RunPages task; deployed and run locally alike. */
export const SYNC_PAGES_DEFINITION_PATH = fileURLToPath(new URL("./sync-pages.asl.json", import.meta.url));

export function loadSyncDefinition(): object {
  return JSON.parse(readFileSync(SYNC_DEFINITION_PATH, "utf8")) as object;
}

export function loadSyncPagesDefinition(): object {
  return JSON.parse(readFileSync(SYNC_PAGES_DEFINITION_PATH, "utf8")) as object;
}
