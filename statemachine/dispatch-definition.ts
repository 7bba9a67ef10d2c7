import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** The schedule tick's state machine: CDK deploys this file and the local runtime runs it. */
export const DISPATCH_DEFINITION_PATH = fileURLToPath(new URL("./dispatch.asl.json", import.meta.url));
/** The Map state whose children hold the runs: at most max_children at once (MaxConcurrencyPath: what ListConnections answers), of at most batch_size runs each. */
export const DISPATCH_MAP_STATE = "RunConnections";
/** The Task state that lists (and batches) the connections and counts the live runs; its Parameters carry batch_size, max_runs and max_children. */
export const DISPATCH_LIST_STATE = "ListConnections";
/**
 * Most connections in one Map child. A child's Standard states (its start,
 * ClaimRuns, the two Maps, the choice, the end) are shared by its batch, so a
 * larger batch makes an idle run cheaper; but a child holds its batch's slots
 * until its slowest run ends, so a larger batch also idles more slots behind
 * a long run. 10 puts an idle run at about 1.6 Standard transitions
 * (docs/cost.md).
 */
export const DISPATCH_BATCH_SIZE = 10;

export interface DispatchBatching {
  /** Connections per Map child (the last one of a page may have fewer). */
  readonly batchSize: number;
  /** The most Map children at once (ListConnections lowers it by the live runs). batchSize x children <= the cap, so the cap holds for every run's whole life. */
  readonly children: number;
}

/** As many children as the cap needs at DISPATCH_BATCH_SIZE, then batches as large as the cap allows them. */
export function dispatchBatching(maxConcurrentRuns: number): DispatchBatching {
  if (!Number.isInteger(maxConcurrentRuns) || maxConcurrentRuns < 1) {
    throw new RangeError(`maxConcurrentRuns must be a whole number >= 1; got ${maxConcurrentRuns}`);
  }
  const children = Math.ceil(maxConcurrentRuns / DISPATCH_BATCH_SIZE);
  return { batchSize: Math.floor(maxConcurrentRuns / children), children };
}

/**
 * The definition with the cap on concurrent runs written in: ListConnections'
 * batch_size, max_runs and max_children must be numbers (a `${...}`
 * substitution is a string), so both composition roots set them here, from
 * context `maxConcurrentRuns` in AWS and MAX_CONCURRENT_RUNS locally. The
 * file holds 0 for each: never deployed as is.
 */
export function loadDispatchDefinition(maxConcurrentRuns: number): { States: Record<string, Record<string, unknown>> } {
  const { batchSize, children } = dispatchBatching(maxConcurrentRuns);
  const definition = JSON.parse(readFileSync(DISPATCH_DEFINITION_PATH, "utf8")) as { States: Record<string, Record<string, unknown>> };
  const parameters = definition.States[DISPATCH_LIST_STATE]!["Parameters"] as Record<string, unknown>;
  parameters["batch_size"] = batchSize;
  parameters["max_runs"] = maxConcurrentRuns;
  parameters["max_children"] = children;
  return definition;
}
