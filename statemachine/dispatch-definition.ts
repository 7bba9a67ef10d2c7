import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** The schedule tick's state machine: CDK deploys this file and the local runtime runs it. */
export const DISPATCH_DEFINITION_PATH = fileURLToPath(new URL("./dispatch.asl.json", import.meta.url));
/** The Map state whose MaxConcurrency is the cap on concurrent runs. */
export const DISPATCH_MAP_STATE = "RunConnections";

/**
 * The definition with the cap on concurrent runs written in: MaxConcurrency
 * must be a number in ASL (a `${...}` substitution is a string), so both
 * composition roots set it here, from context `maxConcurrentRuns` in AWS and
 * MAX_CONCURRENT_RUNS locally. The file holds 0 (unbounded): never deployed as is.
 */
export function loadDispatchDefinition(maxConcurrentRuns: number): { States: Record<string, Record<string, unknown>> } {
  if (!Number.isInteger(maxConcurrentRuns) || maxConcurrentRuns < 1) {
    throw new RangeError(`maxConcurrentRuns must be a whole number >= 1; got ${maxConcurrentRuns}`);
  }
  const definition = JSON.parse(readFileSync(DISPATCH_DEFINITION_PATH, "utf8")) as { States: Record<string, Record<string, unknown>> };
  definition.States[DISPATCH_MAP_STATE]!["MaxConcurrency"] = maxConcurrentRuns;
  return definition;
}
